// 1-D stencil: 5-point binomial smoothing (radius 2, symmetric weights) everywhere, clamping
// indices at the ends; float.
#include <algorithm>

constexpr int kRadius = 2;
constexpr float kWeights[2 * kRadius + 1] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

// regrapht: n = 1<<22; x[n] in ~ uniform(-1, 1); y[n] out
void smooth5_clamped(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = -kRadius; k <= kRadius; ++k) {
            const int j = std::min(std::max(i + k, 0), n - 1);
            acc += kWeights[k + kRadius] * x[j];
        }
        y[i] = acc;
    }
}
