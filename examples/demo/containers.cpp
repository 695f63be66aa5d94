// Template containers instantiated for several element types, as real C++ programs do.
// Instantiations for types of the same size and representation compile to identical code
// (int/unsigned, long/unsigned long/pointers); others differ only in constants.
#include <cstdio>
#include <cstdlib>
#include <cstring>

template <typename T> class Vec {
  T *data_ = nullptr;
  unsigned size_ = 0, cap_ = 0;

public:
  __attribute__((noinline)) void push(T v) {
    if (size_ == cap_) {
      unsigned ncap = cap_ ? cap_ * 2 : 4;
      T *nd = static_cast<T *>(std::malloc(ncap * sizeof(T)));
      if (!nd) std::abort();
      if (data_) std::memcpy(nd, data_, size_ * sizeof(T));
      std::free(data_);
      data_ = nd;
      cap_ = ncap;
    }
    data_[size_++] = v;
  }
  __attribute__((noinline)) T sum() const {
    T s = T();
    for (unsigned i = 0; i < size_; ++i) s += data_[i];
    return s;
  }
  __attribute__((noinline)) long find(T v) const {
    for (unsigned i = 0; i < size_; ++i)
      if (data_[i] == v) return i;
    return -1;
  }
  __attribute__((noinline)) void reverse() {
    for (unsigned i = 0, j = size_ ? size_ - 1 : 0; i < j; ++i, --j) {
      T t = data_[i]; data_[i] = data_[j]; data_[j] = t;
    }
  }
  unsigned size() const { return size_; }
  T at(unsigned i) const { return data_[i]; }
  ~Vec() { std::free(data_); }
};

template <typename T> __attribute__((noinline)) void fill(Vec<T> &v, int n) {
  for (int i = 0; i < n; ++i) v.push(static_cast<T>(i * 3 + 1));
}

extern "C" void run_containers() {
  Vec<int> vi; Vec<unsigned> vu; Vec<long> vl; Vec<unsigned long> vul; Vec<short> vs;
  fill(vi, 50); fill(vu, 40); fill(vl, 30); fill(vul, 20); fill(vs, 10);
  vi.reverse(); vu.reverse(); vl.reverse(); vul.reverse(); vs.reverse();
  std::printf("int %d %ld %d\n", vi.sum(), vi.find(31), vi.at(0));
  std::printf("unsigned %u %ld %u\n", vu.sum(), vu.find(31), vu.at(0));
  std::printf("long %ld %ld %ld\n", vl.sum(), vl.find(31), vl.at(0));
  std::printf("ulong %lu %ld %lu\n", vul.sum(), vul.find(31), vul.at(0));
  std::printf("short %d %ld %d\n", (int)vs.sum(), vs.find(7), (int)vs.at(0));
}
