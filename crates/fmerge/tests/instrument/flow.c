#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
static int depth_limit;

__attribute__((noinline)) static int classify(int x) {
  switch (x % 7) {
  case 0: case 1: return 10;
  case 2: return 20;
  case 3: case 4: case 5: return x & 1 ? 30 : 31;
  default: return 40;
  }
}

__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static void deep(int n) {
  if (n > depth_limit) longjmp(env, n);
  if (n % 3 == 0) deep(n + 2); else deep(n + 1);
}

__attribute__((noinline)) static int interp(const char *prog) {
  static void *ops[] = {&&op_inc, &&op_dec, &&op_dbl, &&op_end};
  int acc = 0;
  const char *pc = prog;
#define NEXT goto *ops[(*pc++ - '0') & 3]
  NEXT;
op_inc: acc++; NEXT;
op_dec: acc--; NEXT;
op_dbl: acc *= 2; NEXT;
op_end: return acc;
}

__attribute__((noinline)) static int loops(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      if ((i ^ j) & 4) continue;
      s += classify(i * j);
      if (s > 100000) goto out;
    }
  }
out:
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  long total = 0;
  for (int i = 0; i < n * 10; i++) total += classify(i);
  total += fib(n + 5);
  total += loops(n * 3);
  for (int k = 0; k < n; k++) {
    depth_limit = 5 + k;
    int r = setjmp(env);
    if (r == 0) deep(0); else total += r;
  }
  total += interp("0120210123");
  printf("total %ld\n", total);
  if (argc > 2 && strcmp(argv[2], "exit") == 0) { fflush(stdout); exit(3); }
  return 0;
}
