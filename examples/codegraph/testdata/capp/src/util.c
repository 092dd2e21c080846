#include "util.h"

/* add adds. */
int add(int a, int b) { return a + b; }

static int twice(int x) { return add(x, x); }

int quadruple(int x) { return twice(twice(x)); }
