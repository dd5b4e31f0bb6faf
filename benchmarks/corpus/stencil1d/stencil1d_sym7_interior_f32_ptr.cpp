// 1-D stencil: 7-point binomial smoothing (radius 3, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; float.

constexpr int kRadius = 3;

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth7(int n, const float* x, float* y) {
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.3125f * x[i]
               + 0.234375f * (x[i - 1] + x[i + 1])
               + 0.09375f * (x[i - 2] + x[i + 2])
               + 0.015625f * (x[i - 3] + x[i + 3]);
    }
}
