#include <vector>
#include <cstddef>

// y = A x, A in CSR form held in std::vectors; one output per row.
// regrapht: m = 1<<16; nnz = m*16; row_ptr[m+1] in ~ csr(col=col_idx, cols=m)
// regrapht: col_idx[nnz] in; vals[nnz] in ~ normal(0, 1); x[m] in; y[m] out
void spmv(const std::vector<int>& row_ptr, const std::vector<int>& col_idx,
          const std::vector<float>& vals, const std::vector<float>& x, std::vector<float>& y) {
    for (size_t r = 0; r < y.size(); ++r) {
        float acc = 0.0f;
        for (int p = row_ptr[r]; p < row_ptr[r + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[r] = acc;
    }
}
