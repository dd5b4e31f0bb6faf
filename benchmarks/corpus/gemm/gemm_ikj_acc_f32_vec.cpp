// Dense matrix-matrix product C += A B in i-k-j loop order (rows of B streamed into rows of C), A m
// x k, B k x n, row-major; float.
#include <vector>

// regrapht: m = 512; n = 512; k = 512; atol = 1e-3; rtol = 1e-3; A[m*k] in ~ uniform(-1, 1)
// regrapht: B[k*n] in ~ uniform(-1, 1); C[m*n] inout ~ uniform(-1, 1)
void gemm_accumulate(int m, int n, int k, const std::vector<float>& A,
                     const std::vector<float>& B, std::vector<float>& C) {
    for (int i = 0; i < m; ++i) {
        for (int p = 0; p < k; ++p) {
            const float a = A[i * k + p];
            for (int j = 0; j < n; ++j) {
                C[i * n + j] += a * B[p * n + j];
            }
        }
    }
}
