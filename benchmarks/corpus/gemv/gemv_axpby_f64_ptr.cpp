// Dense matrix-vector product y = alpha * A x + beta * y, A row-major m x n; double.

// regrapht: m = 4096; n = 4096; alpha = 1.5; beta = -0.5; A[m*n] in ~ uniform(-1, 1)
// regrapht: x[n] in ~ uniform(-1, 1); y[m] inout ~ uniform(-1, 1)
void gemv_scaled(int m, int n, double alpha, double beta, const double* A, const double* x,
                 double* y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = alpha * acc + beta * y[i];
    }
}
