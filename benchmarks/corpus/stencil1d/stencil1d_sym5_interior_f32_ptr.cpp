// 1-D stencil: 5-point binomial smoothing (radius 2, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; float.

constexpr int kRadius = 2;

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth5(int n, const float* x, float* y) {
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.375f * x[i]
               + 0.25f * (x[i - 1] + x[i + 1])
               + 0.0625f * (x[i - 2] + x[i + 2]);
    }
}
