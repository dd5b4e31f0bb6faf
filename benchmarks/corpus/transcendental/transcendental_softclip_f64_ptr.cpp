// Transcendental map: soft clipping a*tanh(x/a), double, pointer arguments, C math functions.
#include <cmath>

// regrapht: n = 1<<22; a = 2.5; x[n] in ~ uniform(-8, 8); y[n] out
void softclip_map(int n, double a, const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * tanh(x[i] / a);
    }
}
