/* Guaranteed tail calls (musttail): the counter of the exit must go before the call. And
   unreachable blocks, a switch with shared targets and mutual recursion. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int odd(int n);
__attribute__((noinline)) static int even(int n) {
  if (n == 0) return 1;
  __attribute__((musttail)) return odd(n - 1);
}
__attribute__((noinline)) static int odd(int n) {
  if (n == 0) return 0;
  __attribute__((musttail)) return even(n - 1);
}
__attribute__((noinline)) static int pick(int x) {
  switch (x & 7) {
  case 0: case 4: return 1;
  case 1: case 5: case 6: return 2;
  case 7: __builtin_unreachable();
  default: return 3;
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  long s = 0;
  for (int i = 0; i < n; i++) s += even(i) + pick(i % 7);
  printf("%ld\n", s);
  return 0;
}
