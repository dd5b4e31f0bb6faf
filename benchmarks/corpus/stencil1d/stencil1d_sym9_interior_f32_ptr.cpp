// 1-D stencil: 9-point binomial smoothing (radius 4, symmetric weights) over the interior; the
// first and last kRadius elements of y keep their values; float.

constexpr int kRadius = 4;

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1); y[n] inout
void smooth9(int n, const float* x, float* y) {
    for (int i = kRadius; i < n - kRadius; ++i) {
        y[i] = 0.2734375f * x[i]
               + 0.21875f * (x[i - 1] + x[i + 1])
               + 0.109375f * (x[i - 2] + x[i + 2])
               + 0.03125f * (x[i - 3] + x[i + 3])
               + 0.00390625f * (x[i - 4] + x[i + 4]);
    }
}
