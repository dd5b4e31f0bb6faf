// Transcendental map: GELU, tanh approximation, through a helper function.
#include <cmath>

static float gelu_tanh(float x) {
    const float k = 0.7978845608f;  // sqrt(2/pi)
    float inner = k * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
}

// regrapht: n = 1<<23; x[n] in ~ uniform(-4, 4); y[n] out
void gelu(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = gelu_tanh(x[i]);
    }
}
