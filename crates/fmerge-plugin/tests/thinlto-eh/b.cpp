#include "describe.h"
Line from_b(int k) {
  std::string v(static_cast<size_t>(k), 'b');
  switch (k % 3) {
  case 0: return describe("three three three", v);
  case 1: return describe("four four four four", v);
  default: return describe("five five five five five", v);
  }
}
