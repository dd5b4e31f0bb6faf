// Sparse matrix-vector product, ELLPACK with K = 16 slots per row stored col-major, double.

#define K 16

// regrapht: m = 1<<20; n = 16*m; idx[16*m] in ~ permutation; vals[16*m] in; x[n] in; y[m] out
void spmv_ell(int m, int n, const int* idx, const double* vals, const double* x, double* y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int k = 0; k < K; ++k) {
            acc += vals[k * m + i] * x[idx[k * m + i]];
        }
        y[i] = acc;
    }
}
