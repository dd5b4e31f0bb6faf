// Dense matrix-vector product y = alpha * A x + beta * y, A row-major m x n; float.

// regrapht: m = 8192; n = 4096; alpha = 1.5; beta = -0.5; A[m*n] in ~ uniform(-1, 1)
// regrapht: x[n] in ~ uniform(-1, 1); y[m] inout ~ uniform(-1, 1)
void gemv_scaled(int m, int n, float alpha, float beta, const float* A, const float* x, float* y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = alpha * acc + beta * y[i];
    }
}
