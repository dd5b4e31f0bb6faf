// Transcendental map: a Gaussian bump exp(-x^2/2), float, pointer arguments, C math functions.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(-6, 6); y[n] out
void gauss_map(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = expf(-0.5f * x[i] * x[i]);
    }
}
