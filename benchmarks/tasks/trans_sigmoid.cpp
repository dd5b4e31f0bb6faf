// Transcendental map: logistic sigmoid, one expf per element.
#include <cmath>

// regrapht: n = 1<<24; x[n] in ~ uniform(-8, 8); y[n] out
void sigmoid(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 1.0f / (1.0f + expf(-x[i]));
    }
}
