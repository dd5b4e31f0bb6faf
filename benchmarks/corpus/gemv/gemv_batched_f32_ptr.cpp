// Batched matrix-vector products y_b = A_b x_b over batch row-major m x n matrices stored back to
// back; float.

// regrapht: batch = 256; m = 256; n = 256; A[batch*m*n] in ~ uniform(-1, 1)
// regrapht: x[batch*n] in ~ uniform(-1, 1); y[batch*m] out
void batched_gemv(int batch, int m, int n, const float* A, const float* x, float* y) {
    for (int b = 0; b < batch; ++b) {
        for (int i = 0; i < m; ++i) {
            float acc = 0.0f;
            for (int j = 0; j < n; ++j) {
                acc += A[(b * m + i) * n + j] * x[b * n + j];
            }
            y[b * m + i] = acc;
        }
    }
}
