// Transposed matrix-vector product y = A^T x, A row-major m x n, sweeping the rows of A and
// accumulating into y; double.

// regrapht: m = 4096; n = 4096; A[m*n] in ~ uniform(-1, 1); x[m] in ~ uniform(-1, 1); y[n] out
void gemv_t_rows(int m, int n, const double* A, const double* x, double* y) {
    for (int j = 0; j < n; ++j) {
        y[j] = 0.0;
    }
    for (int i = 0; i < m; ++i) {
        const double xi = x[i];
        for (int j = 0; j < n; ++j) {
            y[j] += A[i * n + j] * xi;
        }
    }
}
