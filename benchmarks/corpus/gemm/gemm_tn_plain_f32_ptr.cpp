// Dense matrix-matrix product, naive triple loop: C = A^T B (A stored k x m, B k x n), row-major;
// float.

// regrapht: m = 384; n = 512; k = 384; A[k*m] in ~ uniform(-1, 1); B[k*n] in ~ uniform(-1, 1)
// regrapht: C[m*n] out
void gemm_tn(int m, int n, int k, const float* A, const float* B, float* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < k; ++p) {
                acc += A[p * m + i] * B[p * n + j];
            }
            C[i * n + j] = acc;
        }
    }
}
