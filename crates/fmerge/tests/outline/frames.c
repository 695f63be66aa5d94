// Functions whose frames save several callee-saved registers (values live across calls), for
// AArch64's frame helpers: compiled with -Oz (minsize) for aarch64-linux-gnu, freestanding
// (no headers: the test needs no AArch64 C library).
long ext(long);
long ext2(long, long);

long f1(long a, long b, long c) {
  long x = ext(a);
  long y = ext(b + x);
  long z = ext(c * y);
  return ext2(x + a, y ^ z) + b * c;
}

long f2(long a, long b, long c, long d) {
  long x = ext2(a, d);
  long y = ext(b - x);
  long z = ext(c + y + d);
  return ext2(x * a + d, y - z) + (b << 2) + c;
}

long f3(long a, long b) {
  long x = ext(a + 1);
  long y = ext2(b, x);
  return ext(x - y) * a + b;
}

long f4(long a, long b, long c, long d, long e) {
  long x = ext(a);
  long y = ext2(b, x);
  long z = ext2(c, y);
  long w = ext2(d, z);
  return ext2(x + y, z + w) + e * a + d;
}

long f5(long a, long b, long c) {
  long x = ext2(c, a);
  long y = ext(b | x);
  long z = ext(a + y);
  return ext2(z, x - y) - c * b;
}
