#include "describe.h"
Line from_a(int k) {
  std::string v(static_cast<size_t>(k), 'a');
  switch (k % 3) {
  case 0: return describe("zero", v);
  case 1: return describe("one one", v);
  default: return describe("two two two", v);
  }
}
