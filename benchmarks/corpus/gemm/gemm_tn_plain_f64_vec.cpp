// Dense matrix-matrix product, naive triple loop: C = A^T B (A stored k x m, B k x n), row-major;
// double.
#include <vector>

// regrapht: m = 384; n = 256; k = 384; A[k*m] in ~ uniform(-1, 1); B[k*n] in ~ uniform(-1, 1)
// regrapht: C[m*n] out
void gemm_tn(int m, int n, int k, const std::vector<double>& A, const std::vector<double>& B,
             std::vector<double>& C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int p = 0; p < k; ++p) {
                acc += A[p * m + i] * B[p * n + j];
            }
            C[i * n + j] = acc;
        }
    }
}
