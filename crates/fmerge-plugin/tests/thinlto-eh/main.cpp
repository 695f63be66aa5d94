#include <cstdio>
#include "describe.h"
Line join(const char *label, const std::string &tail) {
  std::string text = std::string(label) + ": " + tail + "!";
  return Line{text, static_cast<long>(text.size())};
}

int main(int argc, char **) {
  for (int k = argc; k < argc + 3; k++) {
    Line a = from_a(k), b = from_b(k);
    std::printf("%s %ld\n%s %ld\n", a.text.c_str(), a.width, b.text.c_str(), b.width);
  }
  return 0;
}
