// Transposed matrix-vector product y = A^T x, A row-major m x n, one column of A per output
// (strided reads); double.
#include <vector>

// regrapht: m = 4096; n = 4096; A[m*n] in ~ uniform(-1, 1); x[m] in ~ uniform(-1, 1); y[n] out
void gemv_t(int m, int n, const std::vector<double>& A, const std::vector<double>& x,
            std::vector<double>& y) {
    for (int j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int i = 0; i < m; ++i) {
            acc += A[i * n + j] * x[i];
        }
        y[j] = acc;
    }
}
