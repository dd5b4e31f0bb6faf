// Tridiagonal matrix-vector product y = A x with the three diagonals in separate arrays (lower[0]
// and upper[n-1] unused); float.

// regrapht: n = 1<<24; lower[n] in ~ uniform(-1, 1); diag[n] in ~ uniform(-1, 1)
// regrapht: upper[n] in ~ uniform(-1, 1); x[n] in ~ uniform(-1, 1); y[n] out
void tridiag_gemv(int n, const float* lower, const float* diag, const float* upper,
                  const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        float acc = diag[i] * x[i];
        if (i > 0) acc += lower[i] * x[i - 1];
        if (i + 1 < n) acc += upper[i] * x[i + 1];
        y[i] = acc;
    }
}
