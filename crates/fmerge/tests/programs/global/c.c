#include <stdio.h>
static int table_c[8] = {1, 4, 1, 4, 2, 1, 3, 5};
int score_c(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += v[i] * table_c[i & 7];
    if (s > 1000) { printf("c: overflow at %d\n", i); s -= 1000; }
  }
  printf("c: score %d\n", s);
  return s;
}
