// 1-D stencil: centred moving average of width 9 over the interior (the ends of y keep their
// values); float.

#define WINDOW_RADIUS 4

// regrapht: n = 1<<22; x[n] in ~ uniform(-1, 1); y[n] inout
void moving_average(int n, const float* x, float* y) {
    const float scale = 1.0f / (2 * WINDOW_RADIUS + 1);
    for (int i = WINDOW_RADIUS; i < n - WINDOW_RADIUS; ++i) {
        float sum = 0.0f;
        for (int k = i - WINDOW_RADIUS; k <= i + WINDOW_RADIUS; ++k) {
            sum += x[k];
        }
        y[i] = sum * scale;
    }
}
