// Dense matrix-matrix product, naive triple loop: C += A B (A m x k, B k x n), row-major; double.
#include <vector>

// regrapht: m = 384; n = 512; k = 256; A[m*k] in ~ uniform(-1, 1); B[k*n] in ~ uniform(-1, 1)
// regrapht: C[m*n] inout ~ uniform(-1, 1)
void gemm_acc(int m, int n, int k, const std::vector<double>& A, const std::vector<double>& B,
              std::vector<double>& C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int p = 0; p < k; ++p) {
                acc += A[i * k + p] * B[p * n + j];
            }
            C[i * n + j] += acc;
        }
    }
}
