#include <stdio.h>
#include "util.h"

int quadruple(int x);

int main(void) {
    printf("%d %d\n", add(1, 2), quadruple(3));
    return 0;
}
