/* A WASI program whose main (clang names it __main_argc_argv on WebAssembly) has an identical
 * twin that sorts before it: in whole-program mode the twin may go, the entry point may not. */
#include <stdio.h>

int __aaa_twin(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < argc * 40; i++) {
    s = s * 7 + i;
    if (s > 1000) s %= 313;
    printf("%d %d\n", s, argc + (argv[0] != 0));
  }
  return s & 3;
}

int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < argc * 40; i++) {
    s = s * 7 + i;
    if (s > 1000) s %= 313;
    printf("%d %d\n", s, argc + (argv[0] != 0));
  }
  return s & 3;
}

__attribute__((export_name("run"))) int run(int n) {
  char *v[] = {"run", 0};
  return __aaa_twin(n, v);
}
