// Dense matrix-vector product y = A x, A row-major m x n; double.
#include <vector>

// regrapht: m = 4096; n = 4096; A[m*n] in ~ uniform(-1, 1); x[n] in ~ uniform(-1, 1); y[m] out
void gemv(int m, int n, const std::vector<double>& A, const std::vector<double>& x,
          std::vector<double>& y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = acc;
    }
}
