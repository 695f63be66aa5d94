/* A function body long enough to be worth sharing, reading TABLE and calling two functions
   of main.c; the calls carry an attribute group of their own (cold), numbered by the order
   the module lists its declarations in. */
int log_a(int x);
int log_b(int x);
__attribute__((cold)) int log_a(int x);
#define WORK(NAME, TABLE)                                                                      \
  __attribute__((noinline)) int NAME(int x, int n) {                                           \
    int h = x;                                                                                 \
    for (int i = 0; i < n; i++) {                                                              \
      h = h * 31 + TABLE[(h ^ i) & 15];                                                        \
      h ^= TABLE[(h >> 3) & 15] << 2;                                                          \
      if (h & 1)                                                                               \
        h += log_a(h & 255);                                                                   \
      else                                                                                     \
        h -= log_b(h & 127);                                                                   \
      h = (h << 5) | ((unsigned)h >> 27);                                                      \
    }                                                                                          \
    return h ^ TABLE[n & 15];                                                                  \
  }
