/* Sparse matrix-vector product, CSR format. Loop bounds come from row_ptr, so the
   structure is declared in the annotation. */

// regrapht: m = 1<<16; n = 1<<16; nnz = m*16
// regrapht: row_ptr[m+1] in ~ csr(col=col_idx, cols=n); col_idx[nnz] in; vals[nnz] in ~ normal(0, 1); x[n] in
void spmv_csr(int m, int n, const int *row_ptr, const int *col_idx, const float *vals,
              const float *x, float *y)
{
    for (int i = 0; i < m; ++i) {
        float sum = 0.0f;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
            sum += vals[k] * x[col_idx[k]];
        y[i] = sum;
    }
}
