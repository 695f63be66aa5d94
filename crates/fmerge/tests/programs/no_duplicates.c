/* Nothing to merge: every function does different work. fmerge must leave .text alone. */
#include <stdio.h>

__attribute__((noinline)) static unsigned hash(const char *s) { unsigned h = 5381; while (*s) h = h * 33 + (unsigned char)*s++; return h; }
__attribute__((noinline)) static double mean(const int *v, int n) { double s = 0; for (int i = 0; i < n; i++) s += v[i]; return n ? s / n : 0; }
__attribute__((noinline)) static int gcd(int a, int b) { while (b) { int t = a % b; a = b; b = t; } return a; }
__attribute__((noinline)) static void reverse(char *s, int n) { for (int i = 0, j = n - 1; i < j; i++, j--) { char t = s[i]; s[i] = s[j]; s[j] = t; } }

int main(void) {
  int v[] = {3, 1, 4, 1, 5, 9, 2, 6};
  char word[] = "merging";
  reverse(word, 7);
  printf("%u %.3f %d %s\n", hash("fmerge"), mean(v, 8), gcd(84, 36), word);
  return 0;
}
