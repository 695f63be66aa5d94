/* Freestanding WebAssembly (wasm32-unknown-unknown, no libc): similar and identical functions,
 * some called only directly, some through a table (address taken), exported for a JavaScript
 * host to call. */
typedef unsigned int u32;

static u32 table[64];

__attribute__((noinline)) u32 mix_a(u32 x, u32 y) {
  u32 h = x * 2654435761u;
  for (u32 i = 0; i < y; i++) { h ^= h >> 13; h *= 0x5bd1e995u; h += i; if (h & 1) table[i & 63] += h; }
  return h;
}
__attribute__((noinline)) u32 mix_b(u32 x, u32 y) {
  u32 h = x * 2246822519u;
  for (u32 i = 0; i < y; i++) { h ^= h >> 15; h *= 0x5bd1e995u; h += i; if (h & 1) table[i & 63] += h; }
  return h;
}
__attribute__((noinline)) u32 mix_c(u32 x, u32 y) {
  u32 h = x * 3266489917u;
  for (u32 i = 0; i < y; i++) { h ^= h >> 11; h *= 0x5bd1e995u; h += i; if (h & 1) table[i & 63] += h; }
  return h;
}
__attribute__((noinline)) u32 sum_sq(const u32 *v, u32 n) {
  u32 s = 0; for (u32 i = 0; i < n; i++) s += v[i] * v[i] + 7; return s;
}
__attribute__((noinline)) u32 sum_sq_copy(const u32 *v, u32 n) {
  u32 s = 0; for (u32 i = 0; i < n; i++) s += v[i] * v[i] + 7; return s;
}
__attribute__((noinline)) u32 sum_cu(const u32 *v, u32 n) {
  u32 s = 0; for (u32 i = 0; i < n; i++) s += v[i] * v[i] * v[i] + 7; return s;
}

typedef u32 (*reducer)(const u32 *, u32);
static reducer reducers[3] = {sum_sq, sum_sq_copy, sum_cu};

__attribute__((export_name("mix"))) u32 mix(u32 which, u32 x, u32 y) {
  switch (which % 3) {
  case 0: return mix_a(x, y);
  case 1: return mix_b(x, y);
  default: return mix_c(x, y);
  }
}

__attribute__((export_name("reduce"))) u32 reduce(u32 which, u32 n) {
  return reducers[which % 3](table, n > 64 ? 64 : n);
}

__attribute__((export_name("same_address"))) u32 same_address(void) {
  return reducers[0] == reducers[1];
}
