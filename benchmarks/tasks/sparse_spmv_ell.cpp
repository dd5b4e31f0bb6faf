// Sparse matrix-vector product, ELLPACK: every row stores exactly K column indices and
// values in column-major slots (idx[k*m + i]). The indices are a permutation of the
// n = K*m columns, so x is gathered in random order, every element once.
#define K 16

// regrapht: m = 1<<20; n = 16*m; idx[16*m] in ~ permutation; vals[16*m] in; x[n] in; y[m] out
void spmv_ell(int m, int n, const int* idx, const float* vals, const float* x, float* y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += vals[k * m + i] * x[idx[k * m + i]];
        }
        y[i] = acc;
    }
}
