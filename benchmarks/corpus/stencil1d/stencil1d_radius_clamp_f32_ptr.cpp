// 1-D stencil: radius r given at run time, 2r+1 weights from an array, clamping indices at the
// ends; float.
#include <algorithm>

// regrapht: n = 1<<22; r = 4; w[2*r+1] in ~ uniform(-0.5, 0.5); x[n] in ~ uniform(-1, 1); y[n] out
void weighted_stencil_clamped(int n, int r, const float* w, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = -r; k <= r; ++k) {
            acc += w[k + r] * x[std::min(std::max(i + k, 0), n - 1)];
        }
        y[i] = acc;
    }
}
