/* `work_b`: see a.c. This module uses `log_a` first. */
#include "work.h"
int table_b[16] = {2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4, 5};
WORK(work_b, table_b)
