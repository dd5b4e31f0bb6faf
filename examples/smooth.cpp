// The bundled example for `make demo`: a sequential loop ReGraphT turns into verified CUDA.
// A 33-tap moving average: enough arithmetic per element that a GPU wins even when the
// timing counts the transfers (end-to-end, what the caller of smooth() experiences).
//
// Run:  .venv/bin/regrapht optimize examples/smooth.cpp --function smooth
#include <cstddef>

constexpr int RADIUS = 16;

// regrapht: n = 1<<22; x[n] in; y[n] out
void smooth(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            int j = i + k;
            if (j >= 0 && j < n) {
                acc += x[j];
            }
        }
        y[i] = acc * (1.0f / (2 * RADIUS + 1));
    }
}
