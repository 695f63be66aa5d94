#include "odr.h"
long run_a(long k) {
  static A a;
  A **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<A>(&p, &n, &cap, &a, k);
  std::free(p);
  return r;
}
