// 1-D stencil: centred moving average of width 33 with the window clamped at the ends; float.
#include <algorithm>

#define WINDOW_RADIUS 16

// regrapht: n = 1<<21; x[n] in ~ uniform(-1, 1); y[n] out
void moving_average_clamped(int n, const float* x, float* y) {
    const float scale = 1.0f / (2 * WINDOW_RADIUS + 1);
    for (int i = 0; i < n; ++i) {
        float sum = 0.0f;
        for (int k = -WINDOW_RADIUS; k <= WINDOW_RADIUS; ++k) {
            sum += x[std::min(std::max(i + k, 0), n - 1)];
        }
        y[i] = sum * scale;
    }
}
