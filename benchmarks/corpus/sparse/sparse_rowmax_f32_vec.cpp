// CSR row maximum and the column holding it (first on ties); empty rows give 0 and column -1,
// float.
#include <vector>

// regrapht: m = 1<<21; n = 1<<21; nnz = m*16; row_ptr[m+1] in ~ csr(col=col_idx, cols=n)
// regrapht: col_idx[nnz] in; vals[nnz] in ~ normal(0, 1); mx[m] out; where[m] out
void csr_row_max(int m, int n, const std::vector<int>& row_ptr, const std::vector<int>& col_idx,
                 const std::vector<float>& vals, std::vector<float>& mx, std::vector<int>& where) {
    for (int i = 0; i < m; ++i) {
        float best = 0.0f;
        int at = -1;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            if (at < 0 || vals[p] > best) {
                best = vals[p];
                at = col_idx[p];
            }
        }
        mx[i] = best;
        where[i] = at;
    }
}
