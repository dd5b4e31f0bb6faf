// Reduction: the maximum of float values, returned; pointer arguments.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 10)
float max_f32(int n, const float* x) {
    float s = -INFINITY;
    for (int i = 0; i < n; ++i) {
        s = fmaxf(s, x[i]);
    }
    return s;
}
