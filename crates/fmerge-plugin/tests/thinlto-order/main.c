#include <stdio.h>
#include "work.h"
int first(int x);
int work_a(int x, int n);
int work_b(int x, int n);
__attribute__((noinline)) int log_a(int x) { return x * 3 + 1; }
__attribute__((noinline)) int log_b(int x) { return x ^ 0x55; }
int main(int argc, char **argv) {
  (void)argv;
  printf("%d %d %d\n", first(argc), work_a(argc, 20 + argc), work_b(argc + 1, 17 + argc));
  return 0;
}
