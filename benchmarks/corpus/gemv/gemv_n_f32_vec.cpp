// Dense matrix-vector product y = A x, A row-major m x n; float.
#include <vector>

// regrapht: m = 8192; n = 4096; A[m*n] in ~ uniform(-1, 1); x[n] in ~ uniform(-1, 1); y[m] out
void gemv(int m, int n, const std::vector<float>& A, const std::vector<float>& x,
          std::vector<float>& y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = acc;
    }
}
