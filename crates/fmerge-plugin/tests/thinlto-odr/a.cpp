#include "odr.h"
template <> __attribute__((noinline)) long weigh<A>(A *x, long i) {
  if (i > 1000) throw i;
  return x ? i * 3 : -1;
}
long run_a(long k) {
  static A a;
  A **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<A>(&p, &n, &cap, &a, k);
  long count = 0;
  r += tally<A>(p, n, &count) + count;
  std::free(p);
  return r;
}
