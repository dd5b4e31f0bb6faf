// Transposed matrix-vector product y = A^T x, A row-major m x n, sweeping the rows of A and
// accumulating into y; float.
#include <vector>

// regrapht: m = 8192; n = 4096; atol = 1e-3; rtol = 1e-3; A[m*n] in ~ uniform(-1, 1)
// regrapht: x[m] in ~ uniform(-1, 1); y[n] out
void gemv_t_rows(int m, int n, const std::vector<float>& A, const std::vector<float>& x,
                 std::vector<float>& y) {
    for (int j = 0; j < n; ++j) {
        y[j] = 0.0f;
    }
    for (int i = 0; i < m; ++i) {
        const float xi = x[i];
        for (int j = 0; j < n; ++j) {
            y[j] += A[i * n + j] * xi;
        }
    }
}
