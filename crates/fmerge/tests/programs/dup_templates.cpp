// Template instantiations that are identical (int/unsigned, long/pointer-sized) or differ in
// constants, plus C++ exceptions so invoke/landingpad paths are exercised.
#include <cstdio>
#include <stdexcept>
#include <vector>

template <typename T> struct Ring {
  std::vector<T> items;
  unsigned head = 0;
  explicit Ring(unsigned n) : items(n) {}
  __attribute__((noinline)) void put(T v) { items[head++ % items.size()] = v; }
  __attribute__((noinline)) T total() const {
    T s = T();
    for (const T &x : items) s += x;
    return s;
  }
  __attribute__((noinline)) T checked(unsigned i) const {
    if (i >= items.size()) throw std::out_of_range("ring index");
    return items[i];
  }
};

template <typename T> __attribute__((noinline)) T try_get(const Ring<T> &r, unsigned i) {
  try {
    return r.checked(i);
  } catch (const std::out_of_range &) {
    return T(-1);
  }
}

int main() {
  Ring<int> a(5); Ring<unsigned> b(6); Ring<long> c(7); Ring<unsigned long> d(8);
  for (int i = 0; i < 20; i++) { a.put(i); b.put(i * 2); c.put(i * 3); d.put(i * 4); }
  std::printf("%d %u %ld %lu\n", a.total(), b.total(), c.total(), d.total());
  std::printf("%d %u %ld %lu\n", try_get(a, 2), try_get(b, 9), try_get(c, 6), try_get(d, 99));
  return 0;
}
