/* Similar functions that take and return large structures: on x86-64 and AArch64 the result
   comes back through a hidden `sret` pointer, and on x86-64 a structure passed by value is a
   `byval` pointer. A merged body must keep those parameters where they were, with the same
   attributes, or the callers' copies and the returned values go wrong. */
#include <stdio.h>

struct vec { long x, y, z, w; double scale; };
struct stats { long lo, hi, sum, count; double mean; };

__attribute__((noinline)) static struct stats stats_plain(const long *v, int n, struct vec bias) {
  struct stats s = {v[0], v[0], 0, 0, 0};
  for (int i = 0; i < n; i++) {
    long x = v[i] + bias.x;
    if (x < s.lo) s.lo = x;
    if (x > s.hi) s.hi = x;
    s.sum += x;
    s.count++;
  }
  s.mean = s.count ? (double)s.sum / s.count * bias.scale : 0;
  return s;
}
__attribute__((noinline)) static struct stats stats_odd(const long *v, int n, struct vec bias) {
  struct stats s = {v[0], v[0], 0, 0, 0};
  for (int i = 0; i < n; i++) {
    long x = v[i] * 3 + bias.y;
    if (x < s.lo) s.lo = x;
    if (x > s.hi) s.hi = x;
    s.sum += x;
    s.count += 2;
  }
  s.mean = s.count ? (double)s.sum / s.count * bias.scale : 0;
  return s;
}
__attribute__((noinline)) static struct stats stats_neg(const long *v, int n, struct vec bias) {
  struct stats s = {v[0], v[0], 0, 0, 0};
  for (int i = 0; i < n; i++) {
    long x = bias.z - v[i];
    if (x < s.lo) s.lo = x;
    if (x > s.hi) s.hi = x;
    s.sum += x ^ bias.w;
    s.count++;
  }
  s.mean = s.count ? (double)s.sum / s.count / bias.scale : 0;
  return s;
}

__attribute__((noinline)) static struct vec vec_mix(struct vec a, struct vec b, long k) {
  struct vec r = {a.x + b.x * k, a.y + b.y * k, a.z - b.z, a.w ^ b.w, a.scale * b.scale};
  if (r.x > 1000) r.x -= 1000;
  if (r.y < -1000) r.y += 1000;
  return r;
}
__attribute__((noinline)) static struct vec vec_blend(struct vec a, struct vec b, long k) {
  struct vec r = {a.x - b.x * k, a.y + b.y / (k ? k : 1), a.z + b.z, a.w | b.w, a.scale + b.scale};
  if (r.x > 2000) r.x -= 2000;
  if (r.y < -2000) r.y += 2000;
  return r;
}

static void show(const char *name, struct stats s) {
  printf("%s: lo=%ld hi=%ld sum=%ld count=%ld mean=%.3f\n", name, s.lo, s.hi, s.sum, s.count,
         s.mean);
}

int main(int argc, char **argv) {
  long v[16];
  for (int i = 0; i < 16; i++) v[i] = (i * 37 + argc) % 23 - 9;
  struct vec bias = {argc, 2, 40, 0x55, 1.5};
  for (int n = 1; n <= 16; n += 5) {
    show("plain", stats_plain(v, n, bias));
    show("odd", stats_odd(v, n, bias));
    show("neg", stats_neg(v, n, bias));
  }
  struct vec a = {1, 2, 3, 4, 0.5}, b = {70, -80, 90, 7, 3.0};
  for (long k = -2; k <= 2; k++) {
    struct vec m = vec_mix(a, b, k), l = vec_blend(b, a, k);
    printf("k=%ld mix=(%ld %ld %ld %ld %.2f) blend=(%ld %ld %ld %ld %.2f)\n", k, m.x, m.y, m.z,
           m.w, m.scale, l.x, l.y, l.z, l.w, l.scale);
    a = m;
  }
  return 0;
}
