#include "shared.h"
static int table3[8] = {1, 4, 1, 4, 2, 1, 3, 5};
static int table4[8] = {5, 3, 5, 8, 9, 7, 9, 3};
#ifndef EDIT_REMOVE
SCORE(score3, table3, "m3", , , )
#endif
#ifdef EDIT_ADD
SCORE(score4, table4, "m4", , , )
#endif
MIX(mix3, table3, "m3", (h << 9) ^ (h >> 23))
