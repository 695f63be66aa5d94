/* Four small functions equal up to one constant (the kind they store): merged into one body,
   each becomes a thunk that jumps to it. A thunk's jump is 5 bytes where every function has a
   section of its own (as a link generates code), 2 where the body is within reach in the same
   section: the size guard must measure as the backend generates code. */
#include <stdlib.h>
#include "obj.h"

static const char kind_a[] = "a", kind_b[] = "b", kind_c[] = "c", kind_d[] = "d";

#define MAKE(NAME, KIND)                                                                   \
  struct obj *NAME(long n) {                                                               \
    struct obj *p = malloc(sizeof *p);                                                     \
    if (!p)                                                                                \
      abort();                                                                             \
    p->kind = KIND;                                                                        \
    p->n = n;                                                                              \
    p->m = n * 3;                                                                          \
    return p;                                                                              \
  }

MAKE(make_a, kind_a)
MAKE(make_b, kind_b)
MAKE(make_c, kind_c)
MAKE(make_d, kind_d)
