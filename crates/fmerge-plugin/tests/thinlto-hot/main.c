/* The driver of `hot.c`. */
#include <stdio.h>
unsigned run_hot(const unsigned char *p, int n, int rounds);
__attribute__((noinline)) unsigned bias_a(unsigned h) { return h + 0x7f4a7c15u; }
__attribute__((noinline)) unsigned bias_b(unsigned h) { return (h ^ 0x165667b1u) + 3; }
int main(int argc, char **argv) {
  (void)argv;
  unsigned char buf[200];
  for (int i = 0; i < 200; i++) buf[i] = (unsigned char)(i * 37 + argc);
  printf("%u\n", run_hot(buf, 200, 50));
  return 0;
}
