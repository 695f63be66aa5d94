#include <stdio.h>
static int table_b[8] = {2, 7, 1, 8, 2, 8, 1, 8};
int score_b(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += v[i] * table_b[i & 7];
    if (s > 1000) { printf("b: overflow at %d\n", i); s -= 1000; }
  }
  printf("b: score %d\n", s);
  return s;
}
