// Sparse matrix-vector product, CSR, with the signature of docs/task-format.md: no nonzero
// count parameter. The host wrapper reads nnz = row_ptr[m] to size col_idx and vals.
// regrapht: m = 1<<19; n = 1<<19; nnz = m*16
// regrapht: row_ptr[m+1] in ~ csr(col=col_idx, cols=n); col_idx[nnz] in; vals[nnz] in ~ normal(0, 1)
// regrapht: x[n] in; y[m] out
void spmv_csr_nonnz(int m, int n, const int* row_ptr, const int* col_idx, const float* vals,
                    const float* x, float* y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = acc;
    }
}
