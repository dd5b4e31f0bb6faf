// Transcendental map: exact GELU with erf, double, pointer arguments, C math functions.
#include <cmath>

// regrapht: n = 1<<22; x[n] in ~ uniform(-5, 5); y[n] out
void gelu_erf_map(int n, const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        y[i] = 0.5 * v * (1.0 + erf(v * 0.7071067811865476));
    }
}
