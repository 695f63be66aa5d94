/* Template instances over different pointer types, as std::vector<T *> makes them: the
   instances of `grow` are the same code in every module (link-once ODR functions that
   identical code folding keeps once), and the instances of `fill` differ only in which `grow`
   they call. */
#include <cstdlib>
struct A { int v; };
struct B { int v; };

template <class T> __attribute__((noinline)) T **grow(T **p, long n, long cap) {
  T **q = static_cast<T **>(std::malloc(sizeof(T *) * cap));
  if (!q) std::abort();
  for (long i = 0; i < n; i++) q[i] = p[i];
  std::free(p);
  return q;
}

template <class T> __attribute__((noinline)) long fill(T ***pp, long *n, long *cap, T *x, long k) {
  long nulls = 0;
  for (long i = 0; i < k; i++) {
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 4;
      *pp = grow<T>(*pp, *n, *cap);
    }
    (*pp)[(*n)++] = (i % 3) ? x : nullptr;
  }
  for (long i = 0; i < *n; i++) nulls += (*pp)[i] == nullptr;
  return nulls * 1000 + *n;
}

/* C and D get `fill` instances too, but their `grow` instances differ from all others (C's
   reallocates, D's clears the new array): these `fill` instances stay equal only up to
   their callee, which no linker folds, and are worth a shared copy. */
struct C { int v; };
struct D { int v; };
template <> inline __attribute__((noinline)) C **grow<C>(C **p, long n, long cap) {
  C **q = static_cast<C **>(std::realloc(p, sizeof(C *) * cap));
  if (!q) std::abort();
  return q;
}
template <> inline __attribute__((noinline)) D **grow<D>(D **p, long n, long cap) {
  D **q = static_cast<D **>(std::calloc(cap, sizeof(D *)));
  if (!q) std::abort();
  for (long i = 0; i < n; i++) q[i] = p[i];
  std::free(p);
  return q;
}

/* `tally` has a landing pad (the guard's destructor runs when `weigh` throws), so its
   machine code has an exception table: ld.lld's identical code folding never folds it, and an
   in-process ThinLTO link keeps each module's copy of a link-once function. Its instances
   differ in their `weigh` callee (not the same code for A and B), one instance per module: a
   shared copy would stay once per module, so round 2 leaves them alone. */
struct Guard {
  long *count;
  ~Guard();
};
template <class T> long weigh(T *x, long i);
template <class T> __attribute__((noinline)) long tally(T **p, long n, long *count) {
  Guard g{count};
  long s = 0;
  for (long i = 0; i < n; i++) {
    s += weigh<T>(p[i], i);
    if (s > 1000000) s /= 3;
    *count += s & 1;
  }
  return s;
}

long run_a(long k);
long run_b(long k);
long run_c(long k);
long run_d(long k);
