// Transcendental map with several math calls per element: softplus(x) * sigmoid(y)
// + log(1 + x^2) * cos(y). Enough arithmetic that the GPU wins even counting transfers.
#include <cmath>

// regrapht: n = 1<<22; x[n] in ~ uniform(-6, 6); y[n] in ~ uniform(-6, 6); z[n] out
void softplus_mix(int n, const float* x, const float* y, float* z) {
    for (int i = 0; i < n; ++i) {
        float a = x[i];
        float b = y[i];
        float softplus = a > 15.0f ? a : log1pf(expf(a));
        float gate = 1.0f / (1.0f + expf(-b));
        z[i] = softplus * gate + logf(1.0f + a * a) * cosf(b);
    }
}
