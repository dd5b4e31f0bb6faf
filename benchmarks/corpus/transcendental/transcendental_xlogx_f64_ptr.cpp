// Transcendental map: the entropy term x*log(x) of positive inputs, double, pointer arguments, C
// math functions.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(0.001, 10); y[n] out
void xlogx_map(int n, const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = x[i] * log(x[i]);
    }
}
