// Transcendental map: a power x^p of non-negative inputs, float, pointer arguments, C math
// functions.
#include <cmath>

// regrapht: n = 1<<23; p = 2.2; x[n] in ~ uniform(0, 4); y[n] out
void pow_map(int n, float p, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = powf(x[i], p);
    }
}
