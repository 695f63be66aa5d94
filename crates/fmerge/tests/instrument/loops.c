#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loops for counter promotion: early exits by break and goto, nesting, a loop that calls
   exit() from inside (the block calling exit() is outside the loop: the counts are written
   back before it), a loop whose call may exit (kept in memory), memcpy in a loop. */

__attribute__((noinline)) int maybe_exit(int i, int n) {
  if (i == n) {
    printf("maybe_exit at %d\n", i);
    exit(4);
  }
  return i & 3;
}

__attribute__((noinline)) long search(const int *a, int n, int key) {
  long steps = 0;
  for (int i = 0; i < n; i++) {
    steps += a[i] & 1 ? 3 : 1;
    if (a[i] == key)
      break;
    if (a[i] < 0)
      goto negative;
  }
  return steps;
negative:
  return -steps;
}

__attribute__((noinline)) long nested(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      if ((i ^ j) & 1)
        s += j;
      else
        s -= i;
      for (int k = 0; k < (j & 3); k++)
        s ^= k * i;
    }
    if (s > 1000000)
      break;
  }
  return s;
}

__attribute__((noinline)) long with_call(int n, int limit) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3 == 0)
      s += maybe_exit(i, limit);
    else
      s += i;
  }
  return s;
}

__attribute__((noinline)) long exits_inside(int n, int when) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1)
      s += i;
    else
      s ^= i;
    if (i == when) {
      printf("exit inside the loop at %d: %ld\n", i, s);
      exit(3);
    }
  }
  return s;
}

__attribute__((noinline)) long copies(char *dst, const char *src, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    memcpy(dst + (i & 7) * 8, src + (i % 5) * 8, 8 + (i & 1));
    if (dst[i & 63] > 'm')
      s++;
  }
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  int a[256];
  for (int i = 0; i < 256; i++)
    a[i] = (i * 37) % 101 - (i == 200 ? 500 : 0);
  long t = 0;
  for (int r = 0; r < n; r++) {
    t += search(a, 256, r % 120);
    t += nested(r % 40);
  }
  char src[64], dst[80];
  for (int i = 0; i < 64; i++)
    src[i] = 'a' + i % 26;
  t += copies(dst, src, n * 10);
  printf("%ld\n", t);
  t += with_call(n, mode == 1 ? n / 2 : -1);
  t += exits_inside(n, mode == 2 ? n / 3 : -1);
  printf("%ld\n", t);
  return 0;
}
