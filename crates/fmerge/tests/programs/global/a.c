/* Module a: handlers that differ from module b's only in the tables and messages they use. */
#include <stdio.h>
static int table_a[8] = {3, 1, 4, 1, 5, 9, 2, 6};
int score_a(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s += v[i] * table_a[i & 7];
    if (s > 1000) { printf("a: overflow at %d\n", i); s -= 1000; }
  }
  printf("a: score %d\n", s);
  return s;
}
int score_b(const int *v, int n);
int score_c(const int *v, int n);
int main(void) {
  int v[] = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  printf("%d %d %d\n", score_a(v, 12), score_b(v, 10), score_c(v, 8));
  return 0;
}
