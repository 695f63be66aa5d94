// One template, instantiated for string literals of different lengths in two modules: the
// instances return an object (`sret` of a named struct type), hold strings (landing pads, so
// identical code folding never folds them) and differ only in `dereferenceable(N)` on their
// parameter. Global merging shares one copy among all of them.
#include <string>

struct Line {
  std::string text;
  long width;
};

// Defined in main.cpp, out of sight of the modules that call it (so `describe` keeps its
// landing pad: the temporary string dies if it throws).
Line join(const char *label, const std::string &tail);

template <int N>
__attribute__((noinline)) Line describe(const char (&label)[N], const std::string &value) {
  std::string tail(value);
  return join(label, tail);
}

Line from_a(int k);
Line from_b(int k);
