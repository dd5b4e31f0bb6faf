// Sparse matrix-vector product y = A x, CSR in std::vectors, double.
#include <vector>

// regrapht: m = 1<<19; n = 1<<19; nnz = m*16; row_ptr[m+1] in ~ csr(col=col_idx, cols=n)
// regrapht: col_idx[nnz] in; vals[nnz] in ~ normal(0, 1); x[n] in; y[m] out
void spmv_csr(int m, int n, const std::vector<int>& row_ptr, const std::vector<int>& col_idx,
              const std::vector<double>& vals, const std::vector<double>& x,
              std::vector<double>& y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = acc;
    }
}
