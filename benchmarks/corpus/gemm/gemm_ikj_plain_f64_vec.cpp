// Dense matrix-matrix product C = A B (C zeroed first) in i-k-j loop order (rows of B streamed into
// rows of C), A m x k, B k x n, row-major; double.
#include <vector>

// regrapht: m = 512; n = 512; k = 384; A[m*k] in ~ uniform(-1, 1); B[k*n] in ~ uniform(-1, 1)
// regrapht: C[m*n] out
void gemm_ikj(int m, int n, int k, const std::vector<double>& A, const std::vector<double>& B,
              std::vector<double>& C) {
    for (int i = 0; i < m * n; ++i) {
        C[i] = 0.0;
    }
    for (int i = 0; i < m; ++i) {
        for (int p = 0; p < k; ++p) {
            const double a = A[i * k + p];
            for (int j = 0; j < n; ++j) {
                C[i * n + j] += a * B[p * n + j];
            }
        }
    }
}
