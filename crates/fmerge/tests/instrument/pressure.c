#include <stdio.h>
#include <stdlib.h>

/* Counter promotion and register pressure: `crowded` keeps 40 values live through its loop,
   more than twice x86-64's 16 integer registers (a counter kept in a register there would push
   one of them to the stack); `simple` keeps a handful. */

#define EACH(X)                                                                                \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) \
      X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)     \
          X(31) X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39)
#define DECLARE(k) long s##k = k;
#define UPDATE(k) s##k = (s##k ^ (x + k)) * (2 * k + 3);
#define COMBINE(k) t = t * 7 + s##k;

__attribute__((noinline)) long crowded(const int *a, int n) {
  EACH(DECLARE)
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) {
    long x = a[i];
    if (x < 0)
      break;
    EACH(UPDATE)
  }
  long t = 0;
  EACH(COMBINE)
  return t;
}

__attribute__((noinline)) long simple(const int *a, int n) {
  long s = 0;
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
  for (int i = 0; i < n; i++) {
    if (a[i] < 0)
      break;
    s += a[i] & 1 ? 3 : a[i];
  }
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int a[512];
  for (int i = 0; i < 512; i++)
    a[i] = (i * 37) % 101 - (i == 400 ? 500 : 0);
  long t = 0;
  for (int r = 0; r < n; r++)
    t += crowded(a, r * 5 % 512) + simple(a, r * 7 % 512);
  printf("%ld\n", t);
  return 0;
}
