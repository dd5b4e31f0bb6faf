// Scaled sparse matrix-vector product y = alpha A x + beta y, CSR, double.

// regrapht: m = 1<<19; n = 1<<19; nnz = m*16; alpha = 1.5; beta = -0.5
// regrapht: row_ptr[m+1] in ~ csr(col=col_idx, cols=n); col_idx[nnz] in
// regrapht: vals[nnz] in ~ normal(0, 1); x[n] in; y[m] inout
void spmv_csr_scaled(int m, int n, double alpha, double beta, const int* row_ptr,
                     const int* col_idx, const double* vals, const double* x, double* y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = alpha * acc + beta * y[i];
    }
}
