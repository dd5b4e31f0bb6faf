// Transcendental map: a reciprocal square root 1/sqrt(x + eps), double, pointer arguments, C math
// functions.
#include <cmath>

// regrapht: n = 1<<24; eps = 0.0001; x[n] in ~ uniform(0, 100); y[n] out
void rsqrt_map(int n, double eps, const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 1.0 / sqrt(x[i] + eps);
    }
}
