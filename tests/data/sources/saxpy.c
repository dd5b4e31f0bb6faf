/* Single-precision a*x + y, the BLAS level-1 classic. */
#include <stddef.h>

void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}
