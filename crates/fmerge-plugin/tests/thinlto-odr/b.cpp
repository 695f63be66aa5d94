#include "odr.h"
template <> __attribute__((noinline)) long weigh<B>(B *x, long i) {
  if (i > 1000) throw i;
  return x ? i * 5 + 1 : 7;
}
long run_b(long k) {
  static B b;
  B **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<B>(&p, &n, &cap, &b, k);
  long count = 0;
  r += tally<B>(p, n, &count) + count;
  std::free(p);
  return r;
}
