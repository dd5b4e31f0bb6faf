// Dense transposed matrix-vector product: y = A^T x with A row-major m x n. Each output
// walks a column (stride n), so the sequential loop is cache-unfriendly.
// regrapht: m = 4096; n = 4096; A[m*n] in; x[m] in; y[n] out
void gemv_t(int m, int n, const float* A, const float* x, float* y) {
    for (int j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int i = 0; i < m; ++i) {
            acc += A[i * n + j] * x[i];
        }
        y[j] = acc;
    }
}
