#include <stdio.h>
#include "obj.h"
int main(int argc, char **argv) {
  struct obj *o[] = {make_a(argc), make_b(argc + 1), make_c(argc + 2), make_d(argc + 3)};
  (void)argv;
  for (int i = 0; i < 4; i++)
    printf("%s %ld %ld\n", o[i]->kind, o[i]->n, o[i]->m);
  return 0;
}
