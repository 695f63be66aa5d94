/* A program of three modules whose functions are equal up to constants (the score_* family)
   or similar (the mix_* family) across modules, for global merging inside ThinLTO backends.
   The EDIT_* macros make the later version of the sources that the stale-information tests
   build with merge information from the earlier one:
     EDIT_BODY       m2's score changes its body,
     EDIT_REMOVE     m3's score is gone,
     EDIT_ADD        m3 gains a new member of the family,
     EDIT_SIGNATURE  m2's score takes one more parameter. */
#include <stdio.h>
#define SCORE(NAME, TABLE, TAG, EXTRA_PARAM, EXTRA_USE, EXTRA_OP)                            \
  int NAME(const int *v, int n EXTRA_PARAM) {                                                  \
    int s = 0;                                                                                 \
    for (int i = 0; i < n; i++) {                                                              \
      s += v[i] * TABLE[i & 7] EXTRA_USE;                                                      \
      EXTRA_OP;                                                                                \
      if (s > 1000) {                                                                          \
        printf(TAG ": overflow at %d\n", i);                                                   \
        s -= 1000;                                                                             \
      }                                                                                        \
    }                                                                                          \
    printf(TAG ": score %d\n", s);                                                             \
    return s;                                                                                  \
  }
#define MIX(NAME, TABLE, TAG, OP)                                                              \
  unsigned NAME(const unsigned char *p, int n, int rounds) {                                   \
    unsigned h = 17, lo = 0, hi = 0;                                                           \
    for (int r = 0; r < rounds; r++) {                                                         \
      for (int i = 0; i < n; i++) {                                                            \
        unsigned x = p[i] + TABLE[(i + r) & 7];                                                \
        h = (h ^ x) * 2654435761u;                                                             \
        lo += x & 0xff;                                                                        \
        hi += (x >> 4) ^ lo;                                                                   \
        if (hi > 100000) hi -= 100000;                                                         \
        h = OP;                                                                                \
        lo ^= TABLE[h & 7];                                                                    \
      }                                                                                        \
      h ^= lo * 31 + hi;                                                                       \
    }                                                                                          \
    printf(TAG ": mix %u\n", h);                                                               \
    return h + lo - hi;                                                                        \
  }
int score1(const int *v, int n);
#ifdef EDIT_SIGNATURE
int score2(const int *v, int n, int bias);
#else
int score2(const int *v, int n);
#endif
int score3(const int *v, int n);
int score4(const int *v, int n);
unsigned mix1(const unsigned char *p, int n, int rounds);
unsigned mix2(const unsigned char *p, int n, int rounds);
unsigned mix3(const unsigned char *p, int n, int rounds);
