// Dense matrix-matrix product, naive triple loop: C += A B (A m x k, B k x n), row-major; float.

// regrapht: m = 512; n = 256; k = 384; A[m*k] in ~ uniform(-1, 1); B[k*n] in ~ uniform(-1, 1)
// regrapht: C[m*n] inout ~ uniform(-1, 1)
void gemm_acc(int m, int n, int k, const float* A, const float* B, float* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < k; ++p) {
                acc += A[i * k + p] * B[p * n + j];
            }
            C[i * n + j] += acc;
        }
    }
}
