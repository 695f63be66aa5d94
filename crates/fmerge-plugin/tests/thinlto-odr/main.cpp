#include "odr.h"
#include <cstdio>
Guard::~Guard() { *count += 1; }
int main(int argc, char **) {
  long k = 40 + argc;
  std::printf("%ld %ld %ld %ld\n", run_a(k), run_b(k + 1), run_c(k + 2), run_d(k + 3));
  /* Other modules call the `grow` instances too, as template code is used across a program:
     the copies of a.cpp to d.cpp (first on the link line) are the ones kept. */
  A **pa = grow<A>(nullptr, 0, 1);
  B **pb = grow<B>(nullptr, 0, 1);
  C **pc = grow<C>(nullptr, 0, 1);
  D **pd = grow<D>(nullptr, 0, 1);
  std::printf("%d\n", pa && pb && pc && pd);
  std::free(pa);
  std::free(pb);
  std::free(pc);
  std::free(pd);
  return 0;
}
