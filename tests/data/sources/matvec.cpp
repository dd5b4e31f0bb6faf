// Dense row-major matrix-vector product y = A x.
#include <cstddef>

void matvec(int m, int n, const double* A, const double* x, double* y) {
    for (int i = 0; i < m; i++) {
        double acc = 0.0;
        for (int j = 0; j < n; j++) {
            acc += A[i * n + j] * x[j];
        }
        y[i] = acc;
    }
}
