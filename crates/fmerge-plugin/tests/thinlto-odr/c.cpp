#include "odr.h"
long run_c(long k) {
  static C c;
  C **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<C>(&p, &n, &cap, &c, k);
  std::free(p);
  return r;
}
