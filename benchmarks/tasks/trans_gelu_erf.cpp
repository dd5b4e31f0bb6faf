// Transcendental map: exact GELU with erff, plus its derivative (two outputs), each
// element needing erff and expf.
#include <cmath>

// regrapht: n = 1<<23; x[n] in ~ uniform(-5, 5); y[n] out; dy[n] out
void gelu_erf(int n, const float* x, float* y, float* dy) {
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        float cdf = 0.5f * (1.0f + erff(v * 0.70710678f));
        float pdf = 0.39894228f * expf(-0.5f * v * v);
        y[i] = v * cdf;
        dy[i] = cdf + v * pdf;
    }
}
