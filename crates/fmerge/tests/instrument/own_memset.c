#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* The program's own memset: llvm.memset in a loop may become a call of it, so that loop keeps
   its counters in memory; llvm.memcpy (libc's) does not stop promotion. */
void *memset(void *d, int c, size_t n) {
  unsigned char *p = d;
  while (n--) {
    *p++ = (unsigned char)c;
    if (c == 255)
      exit(7);
  }
  return d;
}

__attribute__((noinline)) long fill(char *b, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    __builtin_memset(b, i & 127, 32 + (i & 7));
    s += b[3];
  }
  return s;
}

__attribute__((noinline)) long copy(char *b, const char *src, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    __builtin_memcpy(b, src + (i & 7), 32 + (i & 7));
    s += b[3];
  }
  return s;
}

int main(int argc, char **argv) {
  char b[64], src[64];
  for (int i = 0; i < 64; i++)
    src[i] = (char)i;
  int n = argc > 1 ? atoi(argv[1]) : 10;
  printf("%ld %ld\n", fill(b, n), copy(b, src, n));
  return 0;
}
