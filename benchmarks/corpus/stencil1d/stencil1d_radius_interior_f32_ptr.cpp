// 1-D stencil: radius r given at run time, 2r+1 weights from an array, over the interior i in [r, n
// - r); float.

// regrapht: n = 1<<22; r = 4; w[2*r+1] in ~ uniform(-0.5, 0.5); x[n] in ~ uniform(-1, 1)
// regrapht: y[n] inout
void weighted_stencil(int n, int r, const float* w, const float* x, float* y) {
    for (int i = r; i < n - r; ++i) {
        float acc = 0.0f;
        for (int k = -r; k <= r; ++k) {
            acc += w[k + r] * x[i + k];
        }
        y[i] = acc;
    }
}
