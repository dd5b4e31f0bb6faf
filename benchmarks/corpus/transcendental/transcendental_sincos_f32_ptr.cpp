// Transcendental map: sine and cosine, two outputs, float, pointer arguments, C math functions.
#include <cmath>

// regrapht: n = 1<<22; x[n] in ~ uniform(-8, 8); s[n] out; c[n] out
void sincos_map(int n, const float* x, float* s, float* c) {
    for (int i = 0; i < n; ++i) {
        s[i] = sinf(x[i]);
        c[i] = cosf(x[i]);
    }
}
