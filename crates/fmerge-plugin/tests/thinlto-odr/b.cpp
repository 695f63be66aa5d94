#include "odr.h"
long run_b(long k) {
  static B b;
  B **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<B>(&p, &n, &cap, &b, k);
  std::free(p);
  return r;
}
