// Banded matrix-vector product y = A x: A is n x n with half-bandwidth b, stored by rows as 2b+1
// diagonals (band[i*(2b+1) + (j-i+b)] = A[i][j]); float.
#include <algorithm>

// regrapht: n = 1<<22; b = 8; band[n*(2*b+1)] in ~ uniform(-1, 1); x[n] in ~ uniform(-1, 1)
// regrapht: y[n] out
void band_gemv(int n, int b, const float* band, const float* x, float* y) {
    const int width = 2 * b + 1;
    for (int i = 0; i < n; ++i) {
        const int lo = std::max(0, i - b);
        const int hi = std::min(n - 1, i + b);
        float acc = 0.0f;
        for (int j = lo; j <= hi; ++j) {
            acc += band[i * width + (j - i + b)] * x[j];
        }
        y[i] = acc;
    }
}
