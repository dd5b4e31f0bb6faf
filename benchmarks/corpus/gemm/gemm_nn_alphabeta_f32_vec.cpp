// Dense matrix-matrix product, naive triple loop: C = alpha * A B + beta * C (A m x k, B k x n),
// row-major; float.
#include <vector>

// regrapht: m = 512; n = 384; k = 512; alpha = 1.5; beta = -0.5; A[m*k] in ~ uniform(-1, 1)
// regrapht: B[k*n] in ~ uniform(-1, 1); C[m*n] inout ~ uniform(-1, 1)
void gemm_scaled(int m, int n, int k, float alpha, float beta, const std::vector<float>& A,
                 const std::vector<float>& B, std::vector<float>& C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < k; ++p) {
                acc += A[i * k + p] * B[p * n + j];
            }
            C[i * n + j] = alpha * acc + beta * C[i * n + j];
        }
    }
}
