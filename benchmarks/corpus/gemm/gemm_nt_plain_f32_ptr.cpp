// Dense matrix-matrix product, naive triple loop: C = A B^T (A m x k, B stored n x k), row-major;
// float.

// regrapht: m = 512; n = 384; k = 512; A[m*k] in ~ uniform(-1, 1); B[n*k] in ~ uniform(-1, 1)
// regrapht: C[m*n] out
void gemm_nt(int m, int n, int k, const float* A, const float* B, float* C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < k; ++p) {
                acc += A[i * k + p] * B[j * k + p];
            }
            C[i * n + j] = acc;
        }
    }
}
