// Dense matrix-matrix product, naive triple loop: C = A B (all n x n), row-major; float.
#include <vector>

// regrapht: n = 512; A[n*n] in ~ uniform(-1, 1); B[n*n] in ~ uniform(-1, 1); C[n*n] out
void gemm(int n, const std::vector<float>& A, const std::vector<float>& B, std::vector<float>& C) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < n; ++p) {
                acc += A[i * n + p] * B[p * n + j];
            }
            C[i * n + j] = acc;
        }
    }
}
