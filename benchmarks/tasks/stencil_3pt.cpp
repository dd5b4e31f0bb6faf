// 1-D stencil: 3-point weighted average over the interior; the two border elements of y
// are left as they were (so y is inout).
// regrapht: n = 1<<25; x[n] in; y[n] inout
void stencil3(int n, const float* x, float* y) {
    for (int i = 1; i < n - 1; ++i) {
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
    }
}
