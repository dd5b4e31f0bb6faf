// Sparse matrix-vector product y = A x, CSR in std::vectors, float.
#include <vector>

// regrapht: m = 1<<19; n = 1<<19; nnz = m*16; row_ptr[m+1] in ~ csr(col=col_idx, cols=n)
// regrapht: col_idx[nnz] in; vals[nnz] in ~ normal(0, 1); x[n] in; y[m] out
void spmv_csr(int m, int n, const std::vector<int>& row_ptr, const std::vector<int>& col_idx,
              const std::vector<float>& vals, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = acc;
    }
}
