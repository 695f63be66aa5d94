#include "shared.h"
static int table2[8] = {2, 7, 1, 8, 2, 8, 1, 8};
#if defined(EDIT_SIGNATURE)
#define BIAS_PARAM , int bias
SCORE(score2, table2, "m2", BIAS_PARAM, +bias, )
#elif defined(EDIT_BODY)
SCORE(score2, table2, "m2", , , s ^= i)
#else
SCORE(score2, table2, "m2", , , )
#endif
MIX(mix2, table2, "m2", (h << 5) | (h >> 27))
