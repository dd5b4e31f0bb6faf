// 1-D stencil: 3-point binomial smoothing (radius 1, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; float.

constexpr int kRadius = 1;

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth3(int n, const float* x, float* y) {
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.5f * x[i]
               + 0.25f * (x[i - 1] + x[i + 1]);
    }
}
