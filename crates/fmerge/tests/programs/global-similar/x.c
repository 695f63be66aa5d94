/* Module x: a checksum routine that module y's differs from in a few operations (not only in
   constants), with static helpers, a static table and string literals of its own. */
#include <stdio.h>
static unsigned table_x[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
static unsigned wraps_x;
__attribute__((noinline)) static void report_x(const char *what, unsigned v) {
  printf("x %s %u (%u wraps)\n", what, v, wraps_x);
}
unsigned checksum_x(const unsigned char *p, int n, int rounds) {
  unsigned h = 17, lo = 0, hi = 0, odd = 0, even = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      unsigned v = p[i] + table_x[(i + r) & 15];
      h = (h ^ v) * 2654435761u;
      lo += v & 0xff;
      hi += (v >> 4) ^ lo;
      if (v & 1) odd += v * 3; else even += v >> 1;
      if (hi > 100000) { hi -= 100000; wraps_x++; }
      h = (h << 7) | (h >> 25);
      lo ^= table_x[h & 15] + odd;
    }
    h ^= lo * 31 + hi;
    lo = (lo << 3) | (lo >> 29);
    if ((h & 0xff) == 0x42) report_x("rare", h);
  }
  report_x("done", h);
  return h + lo - hi + odd * 5 - even;
}
