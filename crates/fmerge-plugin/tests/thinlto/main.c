#include "shared.h"
int main(int argc, char **argv) {
  (void)argv;
  int v[] = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  unsigned char buf[100];
  for (int i = 0; i < 100; i++) buf[i] = (unsigned char)(i * 37 + argc);
  printf("%d\n", score1(v, 12));
#ifdef EDIT_SIGNATURE
  printf("%d\n", score2(v, 10, argc));
#else
  printf("%d\n", score2(v, 10));
#endif
#ifndef EDIT_REMOVE
  printf("%d\n", score3(v, 8));
#endif
#ifdef EDIT_ADD
  printf("%d\n", score4(v, 9));
#endif
  printf("%u %u %u\n", mix1(buf, 100, 5), mix2(buf, 90, 6), mix3(buf, 80, 7));
  return 0;
}
