// Dense matrix-matrix product, naive triple loop: C = A B (all n x n), row-major; double.
#include <vector>

// regrapht: n = 384; A[n*n] in ~ uniform(-1, 1); B[n*n] in ~ uniform(-1, 1); C[n*n] out
void gemm(int n, const std::vector<double>& A, const std::vector<double>& B,
          std::vector<double>& C) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int p = 0; p < n; ++p) {
                acc += A[i * n + p] * B[p * n + j];
            }
            C[i * n + j] = acc;
        }
    }
}
