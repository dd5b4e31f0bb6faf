// Transcendental map: the logistic sigmoid, float, pointer arguments, C math functions.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(-10, 10); y[n] out
void sigmoid_map(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 1.0f / (1.0f + expf(-x[i]));
    }
}
