// Transcendental map: GELU, tanh approximation, through a helper, float, pointer arguments, C math
// functions.
#include <cmath>

static float gelu_tanh(float v) {
    const float k = 0.7978845608028654f;  // sqrt(2/pi)
    float inner = k * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(inner));
}

// regrapht: n = 1<<22; x[n] in ~ uniform(-5, 5); y[n] out
void gelu_tanh_map(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = gelu_tanh(x[i]);
    }
}
