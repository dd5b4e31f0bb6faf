// Reduction: maximum with fmaxf, starting from -INFINITY (exact in any order).
#include <cmath>

// regrapht: n = 1<<23; x[n] in ~ normal(0, 10)
float max_f32(int n, const float* x) {
    float m = -INFINITY;
    for (int i = 0; i < n; ++i) {
        m = fmaxf(m, x[i]);
    }
    return m;
}
