// Transcendental map: softplus log(1 + exp(x)), linear above 20, double, pointer arguments, C math
// functions.
#include <cmath>

// regrapht: n = 1<<22; x[n] in ~ uniform(-30, 30); y[n] out
void softplus_map(int n, const double* x, double* y) {
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        y[i] = v > 20.0 ? v : log1p(exp(v));
    }
}
