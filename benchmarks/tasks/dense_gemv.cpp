// Dense matrix-vector product, row-major: y = A x, A is m x n.
// regrapht: m = 4096; n = 4096; A[m*n] in; x[n] in; y[m] out
void gemv(int m, int n, const float* A, const float* x, float* y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = acc;
    }
}
