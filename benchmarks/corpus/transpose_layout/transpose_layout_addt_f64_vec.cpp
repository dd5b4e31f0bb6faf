// Matrix add with one operand transposed: C = A + B^T, A and C m x n, B n x m, row-major; double.
#include <vector>

// regrapht: m = 2048; n = 3072; A[m*n] in ~ uniform(-1, 1); B[n*m] in ~ uniform(-1, 1); C[m*n] out
void add_transposed(int m, int n, const std::vector<double>& A, const std::vector<double>& B,
                    std::vector<double>& C) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            C[i * n + j] = A[i * n + j] + B[j * m + i];
        }
    }
}
