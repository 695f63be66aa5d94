/* Request handlers that differ only in the counters, tables and messages they use, as
   generated or copy-pasted C code often does. */
#include <stdio.h>
#include <string.h>

struct stats { unsigned calls, bytes, errors; };
static struct stats get_stats, put_stats, del_stats, list_stats;
static const char *const get_names[] = {"get-ok", "get-miss"};
static const char *const put_names[] = {"put-ok", "put-full"};
static const char *const del_names[] = {"del-ok", "del-miss"};
static const char *const list_names[] = {"list-ok", "list-empty"};

__attribute__((noinline)) static int handle_get(const char *key, unsigned len) {
  get_stats.calls++;
  get_stats.bytes += len;
  int miss = strlen(key) % 3 == 0;
  if (miss) get_stats.errors++;
  printf("%s %s %u\n", get_names[miss], key, get_stats.bytes);
  return miss ? -1 : (int)len;
}
__attribute__((noinline)) static int handle_put(const char *key, unsigned len) {
  put_stats.calls++;
  put_stats.bytes += len;
  int miss = strlen(key) % 3 == 0;
  if (miss) put_stats.errors++;
  printf("%s %s %u\n", put_names[miss], key, put_stats.bytes);
  return miss ? -1 : (int)len;
}
__attribute__((noinline)) static int handle_del(const char *key, unsigned len) {
  del_stats.calls++;
  del_stats.bytes += len;
  int miss = strlen(key) % 3 == 0;
  if (miss) del_stats.errors++;
  printf("%s %s %u\n", del_names[miss], key, del_stats.bytes);
  return miss ? -1 : (int)len;
}
__attribute__((noinline)) static int handle_list(const char *key, unsigned len) {
  list_stats.calls++;
  list_stats.bytes += len;
  int miss = strlen(key) % 3 == 0;
  if (miss) list_stats.errors++;
  printf("%s %s %u\n", list_names[miss], key, list_stats.bytes);
  return miss ? -1 : (int)len;
}

/* The address of each handler is taken: they must stay distinct functions. */
static int (*const dispatch[])(const char *, unsigned) = {handle_get, handle_put, handle_del, handle_list};

__attribute__((noinline)) static unsigned checksum_a(const unsigned char *p, unsigned n) {
  unsigned h = 2166136261u;
  for (unsigned i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}
__attribute__((noinline)) static unsigned checksum_b(const unsigned char *p, unsigned n) {
  unsigned h = 2166136261u;
  for (unsigned i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

void run_handlers(void) {
  const char *keys[] = {"alpha", "be", "gam", "delta", "epsilon", "zeta"};
  int total = 0;
  for (int round = 0; round < 3; round++)
    for (unsigned k = 0; k < 6; k++)
      total += dispatch[(k + round) % 4](keys[k], (unsigned)strlen(keys[k]) * (round + 1));
  printf("total %d errors %u %u %u %u\n", total, get_stats.errors, put_stats.errors, del_stats.errors,
         list_stats.errors);
  printf("checksums %u %u\n", checksum_a((const unsigned char *)"fmerge", 6),
         checksum_b((const unsigned char *)"merge", 5));
}
