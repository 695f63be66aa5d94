/* Two functions equal up to constants (`step_a` and `step_b` call their own `bias_*`, in
   main.c), called from this module's loop: the estimate from the code calls them likely hot,
   and merging them would make each call do more work (a thunk's jump, one more argument, an
   indirect call where a direct one was). The module's own merging leaves them apart; the second round of global
   merging must too. */
unsigned keys[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
unsigned salt[4] = {0x9e3779b9u, 0x85ebca6bu, 0xc2b2ae35u, 0x27d4eb2fu};
unsigned bias_a(unsigned h);
unsigned bias_b(unsigned h);

#define STEP(NAME, BIAS)                                                                       \
  __attribute__((noinline)) unsigned NAME(unsigned h, unsigned x) {                            \
    h ^= x + salt[0] + (h << 6) + (h >> 2);                                                    \
    h = (h ^ (h >> 15)) * salt[1];                                                             \
    h ^= keys[x & 15] + (h >> 13);                                                             \
    h *= salt[2];                                                                              \
    h ^= keys[(x >> 4) & 15] + (h >> 16);                                                      \
    h = (h ^ (x << 3)) * salt[3];                                                              \
    h ^= (h >> 11) + keys[h & 15];                                                             \
    h = BIAS(h) * 0x9e3779b1u;                                                                 \
    h ^= (h << 9) | (h >> 23);                                                                 \
    return h ^ keys[(h >> 28) & 15];                                                           \
  }
STEP(step_a, bias_a)
STEP(step_b, bias_b)

unsigned run_hot(const unsigned char *p, int n, int rounds) {
  unsigned a = 1, b = 2;
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) {
      a = step_a(a, p[i]);
      b = step_b(b, p[i] ^ (unsigned)r);
    }
  return a ^ b;
}
