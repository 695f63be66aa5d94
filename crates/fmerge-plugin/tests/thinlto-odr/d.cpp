#include "odr.h"
long run_d(long k) {
  static D d;
  D **p = nullptr;
  long n = 0, cap = 0;
  long r = fill<D>(&p, &n, &cap, &d, k);
  std::free(p);
  return r;
}
