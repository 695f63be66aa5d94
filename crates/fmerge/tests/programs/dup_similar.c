/* Similar but not identical functions: different operators, an extra statement, different
   switch targets, loops with phis, calls with different argument counts. Similar-function
   merging must keep every one of them behaving exactly as before. */
#include <stdio.h>
#include <string.h>

struct item { int id; int qty; double price; char name[12]; };

__attribute__((noinline)) static double total_sum(const struct item *v, int n) {
  double t = 0;
  for (int i = 0; i < n; i++) t += v[i].qty * v[i].price;
  return t;
}
__attribute__((noinline)) static double total_max(const struct item *v, int n) {
  double t = 0;
  for (int i = 0; i < n; i++) { double x = v[i].qty * v[i].price; if (x > t) t = x; }
  return t;
}
__attribute__((noinline)) static double total_taxed(const struct item *v, int n, double rate) {
  double t = 0;
  for (int i = 0; i < n; i++) t += v[i].qty * v[i].price * (1.0 + rate);
  return t;
}

__attribute__((noinline)) static const char *classify_a(int code) {
  switch (code) {
  case 0: return "zero";
  case 1: return "one";
  case 2: return "two";
  case 7: return "seven";
  default: return code < 0 ? "negative" : "many";
  }
}
__attribute__((noinline)) static const char *classify_b(int code) {
  switch (code) {
  case 0: return "nil";
  case 1: return "uno";
  case 2: return "dos";
  case 9: return "nueve";
  default: return code < 0 ? "negativo" : "muchos";
  }
}

__attribute__((noinline)) static int find_by_id(const struct item *v, int n, int id) {
  for (int i = 0; i < n; i++) if (v[i].id == id) return i;
  return -1;
}
__attribute__((noinline)) static int find_by_name(const struct item *v, int n, const char *name) {
  for (int i = 0; i < n; i++) if (strcmp(v[i].name, name) == 0) return i;
  return -1;
}

__attribute__((noinline)) static void report_a(const struct item *v, int n) {
  for (int i = 0; i < n; i++) {
    if (v[i].qty == 0) continue;
    printf("A %-8s %3d x %7.2f\n", v[i].name, v[i].qty, v[i].price);
  }
}
__attribute__((noinline)) static void report_b(const struct item *v, int n, FILE *out) {
  int shown = 0;
  for (int i = 0; i < n; i++) {
    if (v[i].qty == 0) continue;
    fprintf(out, "B %-8s %3d x %7.2f\n", v[i].name, v[i].qty, v[i].price);
    shown++;
  }
  fprintf(out, "B shown %d\n", shown);
}

/* Two versions of one command interpreter: the second accepts one more command and scales
   differently. Large and alike, so one body with a function identifier pays. */
struct machine { long acc, reg[4]; int steps, errors; };

__attribute__((noinline)) static long run_v1(struct machine *m, const char *prog) {
  for (const char *p = prog; *p; p++) {
    m->steps++;
    switch (*p) {
    case '+': m->acc += 1; break;
    case '-': m->acc -= 1; break;
    case '*': m->acc *= 2; break;
    case '/': if (m->acc) m->acc /= 3; else m->errors++; break;
    case 'a': case 'b': case 'c': case 'd': m->reg[*p - 'a'] = m->acc; break;
    case 'A': case 'B': case 'C': case 'D': m->acc += m->reg[*p - 'A']; break;
    case '!': m->acc = -m->acc; break;
    case '?': printf("v1 acc=%ld\n", m->acc); break;
    default: m->errors++; break;
    }
    if (m->acc > 100000 || m->acc < -100000) { m->acc %= 1000; m->errors++; }
  }
  return m->acc + m->reg[0] - m->reg[3];
}

__attribute__((noinline)) static long run_v2(struct machine *m, const char *prog) {
  for (const char *p = prog; *p; p++) {
    m->steps++;
    switch (*p) {
    case '+': m->acc += 1; break;
    case '-': m->acc -= 1; break;
    case '*': m->acc *= 3; break;
    case '/': if (m->acc) m->acc /= 3; else m->errors++; break;
    case 'a': case 'b': case 'c': case 'd': m->reg[*p - 'a'] = m->acc; break;
    case 'A': case 'B': case 'C': case 'D': m->acc += m->reg[*p - 'A']; break;
    case '!': m->acc = -m->acc; break;
    case '~': m->acc = ~m->acc; break;
    case '?': printf("v2 acc=%ld steps=%d\n", m->acc, m->steps); break;
    default: m->errors++; break;
    }
    if (m->acc > 100000 || m->acc < -100000) { m->acc %= 1000; m->errors++; }
  }
  return m->acc + m->reg[0] - m->reg[3];
}

int main(void) {
  struct item v[] = {
    {1, 3, 2.5, "apple"}, {2, 0, 9.0, "pear"}, {3, 7, 1.25, "plum"}, {4, 2, 30.0, "melon"},
    {5, 11, 0.5, "fig"},
  };
  int n = sizeof v / sizeof v[0];
  printf("%.2f %.2f %.2f\n", total_sum(v, n), total_max(v, n), total_taxed(v, n, 0.2));
  for (int c = -1; c < 11; c++) printf("%s/%s ", classify_a(c), classify_b(c));
  printf("\n%d %d %d %d\n", find_by_id(v, n, 4), find_by_id(v, n, 9), find_by_name(v, n, "plum"),
         find_by_name(v, n, "kiwi"));
  report_a(v, n);
  report_b(v, n, stdout);
  struct machine m1 = {0}, m2 = {0};
  const char *prog = "+++*a*?B!~-/c?CD*x?";
  long r1 = run_v1(&m1, prog), r2 = run_v2(&m2, prog);
  printf("%ld %d %d | %ld %d %d\n", r1, m1.steps, m1.errors, r2, m2.steps, m2.errors);
  return 0;
}
