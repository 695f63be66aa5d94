struct obj {
  const char *kind;
  long n, m;
};
struct obj *make_a(long n);
struct obj *make_b(long n);
struct obj *make_c(long n);
struct obj *make_d(long n);
