// Elementwise map: clamp into [lo, hi] with fminf/fmaxf.
#include <cmath>

// regrapht: n = 1<<24; lo = -0.5; hi = 0.25; x[n] in ~ uniform(-2, 2); y[n] out
void clamp_map(int n, float lo, float hi, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = fminf(fmaxf(x[i], lo), hi);
    }
}
