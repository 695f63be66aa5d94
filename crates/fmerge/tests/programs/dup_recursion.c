/* Identical recursive functions, mutually recursive pairs, and recursive functions that differ
   only in a constant: self-references must keep calling the right function after merging. */
#include <stdio.h>

__attribute__((noinline)) long fib_a(int n) { return n < 2 ? n : fib_a(n - 1) + fib_a(n - 2); }
__attribute__((noinline)) long fib_b(int n) { return n < 2 ? n : fib_b(n - 1) + fib_b(n - 2); }

static int table_x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static int table_y[8] = {8, 7, 6, 5, 4, 3, 2, 1};
__attribute__((noinline)) static int walk_x(int i, int d) { return d == 0 ? table_x[i & 7] : walk_x(i + table_x[i & 7], d - 1) + 1; }
__attribute__((noinline)) static int walk_y(int i, int d) { return d == 0 ? table_y[i & 7] : walk_y(i + table_y[i & 7], d - 1) + 1; }

__attribute__((noinline)) int is_even(unsigned n);
__attribute__((noinline)) int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
__attribute__((noinline)) int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

int main(void) {
  printf("fib %ld %ld\n", fib_a(20), fib_b(21));
  printf("walk %d %d\n", walk_x(3, 9), walk_y(5, 11));
  printf("parity %d %d\n", is_even(10), is_odd(7));
  return 0;
}
