/* A threaded interpreter (labels as values, a static jump table of block addresses) next to
   ordinary duplicates: the interpreter must never be merged (its blocks' addresses are taken),
   and measuring the others must cope with a global that points into its blocks. */
#include <stdio.h>

static int interpret(const unsigned char *code) {
  static const void *const ops[] = {&&op_inc, &&op_dec, &&op_dbl, &&op_halt};
  int acc = 0;
  goto *ops[*code++];
op_inc:
  acc++;
  goto *ops[*code++];
op_dec:
  acc--;
  goto *ops[*code++];
op_dbl:
  acc *= 2;
  goto *ops[*code++];
op_halt:
  return acc;
}

static int hits_a, hits_b;
__attribute__((noinline)) static int count_a(const char *s) {
  int n = 0;
  for (; *s; s++) if (*s == 'a' || *s == 'e') { n++; hits_a++; }
  printf("count_a %d\n", n);
  return n;
}
__attribute__((noinline)) static int count_b(const char *s) {
  int n = 0;
  for (; *s; s++) if (*s == 'a' || *s == 'e') { n++; hits_b++; }
  printf("count_b %d\n", n);
  return n;
}

int main(void) {
  const unsigned char prog[] = {0, 0, 2, 1, 2, 0, 3};
  printf("%d\n", interpret(prog));
  printf("%d %d %d %d\n", count_a("banana bread"), count_b("eel sea"), hits_a, hits_b);
  return 0;
}
