#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

struct Guard { int *c; ~Guard() { ++*c; } };
static int dtors;

__attribute__((noinline)) int risky(int x) {
  if (x % 5 == 0) throw std::runtime_error("five");
  if (x % 7 == 0) throw x;
  return x * 2;
}
__attribute__((noinline)) int middle(int x) {
  Guard g{&dtors};
  std::vector<int> v(3, x);
  return risky(v[1]) + risky(x + 1);
}
__attribute__((noinline)) int top(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    try { s += middle(i); }
    catch (const std::exception &e) { s += 100; }
    catch (int k) { s += k; }
  }
  return s;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30;
  printf("%d %d\n", top(n), dtors);
  try { middle(5); } catch (...) { puts("caught"); }
  return 0;
}
