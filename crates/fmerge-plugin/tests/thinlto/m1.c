#include "shared.h"
static int table1[8] = {3, 1, 4, 1, 5, 9, 2, 6};
SCORE(score1, table1, "m1", , , )
MIX(mix1, table1, "m1", (h << 7) | (h >> 25))
