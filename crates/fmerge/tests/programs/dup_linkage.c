/* Duplicates across every linkage fmerge must handle: external, static, weak (interposable),
   address-taken, llvm.used, variadic, and functions whose only difference is a constant. */
#include <stdarg.h>
#include <stdio.h>

int counter;

__attribute__((noinline)) int ext_a(int x, int y) { counter += x; return x * y + (x ^ y) - counter % 7; }
__attribute__((noinline)) int ext_b(int x, int y) { counter += x; return x * y + (x ^ y) - counter % 7; }
__attribute__((noinline)) static int stat_c(int x, int y) { counter += x; return x * y + (x ^ y) - counter % 7; }
__attribute__((noinline, weak)) int weak_d(int x, int y) { counter += x; return x * y + (x ^ y) - counter % 7; }
__attribute__((noinline, used)) static int used_e(int x, int y) { counter += x; return x * y + (x ^ y) - counter % 7; }

__attribute__((noinline)) int sum_va(int n, ...) {
  va_list ap; va_start(ap, n); int s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int) * 3 + 1;
  va_end(ap); return s;
}
__attribute__((noinline)) static int sum_vb(int n, ...) {
  va_list ap; va_start(ap, n); int s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int) * 3 + 1;
  va_end(ap); return s;
}

int (*volatile table[])(int, int) = {ext_a, stat_c, weak_d};

int main(void) {
  int acc = 0;
  for (int i = 0; i < 10; i++) {
    acc += ext_a(i, 3) + ext_b(i, 4) + stat_c(i, 5) + weak_d(i, 6) + used_e(i, 7);
    acc += table[i % 3](i, 2);
  }
  printf("acc %d counter %d\n", acc, counter);
  printf("va %d %d\n", sum_va(3, 1, 2, 3), sum_vb(4, 4, 5, 6, 7));
  printf("same address %d\n", table[0] == (int (*)(int, int))ext_b);
  return 0;
}
