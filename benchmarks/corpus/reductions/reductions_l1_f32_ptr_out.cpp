// Reduction: the L1 norm (sum of absolute values) of float values, written to out[0]; pointer
// arguments.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); out[1] out
void l1_f32(int n, const float* x, float* out) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i) {
        s += fabsf(x[i]);
    }
    out[0] = s;
}
