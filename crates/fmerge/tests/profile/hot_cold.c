/* Profile-guided merging: three functions equal up to constants (weighted statistics over an
   array), one of them called in a hot loop, the other two once; and two hot functions that
   differ only in a constant used once per call, after a long loop. Built with clang's PGO
   (-fprofile-generate, a run, -fprofile-use), fmerge prices each merge by the work it adds:
   merging the hot statistics function adds selects inside its loop (over 1% of the run) and
   must not happen under the default budget; merging the two totals adds a few instructions
   per call against 200000 in their loops (about 0.001% of the run, within the default 0.1%
   per KB saved) and may happen.
   Without the profile it merges everything. Every build must print the same. */
#include <stdio.h>
#include <stdlib.h>

struct item { int id; int qty; double price; double weight; };

#define STATS(NAME, A, B, C, D)                                                  \
  __attribute__((noinline)) static double NAME(const struct item *v, int n) {     \
    double t = 0, m = 0, w = 0;                                                   \
    long q = 0;                                                                   \
    for (int i = 0; i < n; i++) {                                                 \
      double x = v[i].qty * v[i].price * A + v[i].weight * B;                     \
      t += x;                                                                     \
      if (x > m) m = x;                                                           \
      w += v[i].weight / (v[i].qty + C);                                          \
      q += (v[i].id * D) % 7;                                                     \
    }                                                                             \
    return t * 0.5 + m * 0.25 + w + (double)q;                                    \
  }

STATS(stats_hot, 1.5, 0.25, 3, 11)
STATS(stats_eu, 1.21, 0.5, 5, 13)
STATS(stats_us, 1.07, 0.75, 7, 17)

#define TOTAL(NAME, K)                                                            \
  __attribute__((noinline)) static double NAME(const struct item *v, int n) {     \
    double t = 0;                                                                 \
    for (int i = 0; i < n; i++)                                                   \
      t += v[i].qty * v[i].price + v[i].weight / (v[i].qty + 1);                  \
    return t * K;                                                                 \
  }

TOTAL(total_net, 0.8)
TOTAL(total_gross, 1.25)

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  struct item v[16];
  for (int i = 0; i < 16; i++) { v[i].id = i; v[i].qty = i % 5; v[i].price = 0.5 * i; v[i].weight = i; }
  double acc = 0;
  static struct item w[16384];
  for (int i = 0; i < 16384; i++) { w[i].id = i; w[i].qty = i % 9; w[i].price = 0.25 * i; w[i].weight = i % 13; }
  double net = 0, gross = 0;
  for (int r = 0; r < rounds; r++) {
    v[r % 16].qty = r % 7;
    acc += stats_hot(v, 16);
    if (r % 128 == 0) { w[r % 16384].qty = r % 5; net += total_net(w, 16384); gross += total_gross(w, 16384); }
  }
  printf("%.2f %.2f %.2f %.2f %.2f\n", acc, stats_eu(v, 16), stats_us(v, 16), net, gross);
  return 0;
}
