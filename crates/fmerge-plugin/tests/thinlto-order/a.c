/* `work_a` (here) and `work_b` (b.c) are equal up to the table they read: global merging
   gives both one shared copy, named by its text. This module uses `log_b` before `log_a`
   (in `first`), so it lists their declarations the other way round from b.c: the copy's
   text, as LLVM prints it, differs between the modules, its meaning does not. */
#include "work.h"
int table_a[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__attribute__((noinline)) int first(int x) { return log_b(x) + 1; }
WORK(work_a, table_a)
