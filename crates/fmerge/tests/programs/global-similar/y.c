/* Module y: the twin of module x's checksum routine, different in a few operations (not only in
   constants), with static helpers, a static table and string literals of its own. */
#include <stdio.h>
#ifndef Y_BIAS
#define Y_BIAS 0 /* the stale-information test builds an older y with another bias */
#endif
static unsigned table_y[16] = {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4, 5};
static unsigned wraps_y;
__attribute__((noinline)) static void report_y(const char *what, unsigned v) {
  printf("y %s %u (%u wraps)\n", what, v, wraps_y);
}
unsigned checksum_y(const unsigned char *p, int n, int rounds) {
  unsigned h = 17, lo = 0, hi = 0, odd = 0, even = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      unsigned v = p[i] + table_y[(i + r) & 15];
      h = (h ^ v) * 2654435761u + (unsigned)i;
      lo += v & 0xff;
      hi += (v >> 4) ^ lo;
      if (v & 1) odd += v * 3; else even += v >> 1;
      if (hi > 100000) { hi -= 100000; wraps_y++; }
      h = (h << 7) | (h >> 25);
      lo ^= table_y[h & 15] + odd;
    }
    h ^= lo * 31 + hi;
    lo = (lo << 5) | (lo >> 27);
    hi ^= (h >> 3) + Y_BIAS;
    if ((h & 0xff) == 0x42) report_y("rare", h);
  }
  report_y("done", h);
  return h + lo - hi + odd * 5 - even;
}
