// Out-degrees from the CSR row pointers and in-degrees counted over the column indices.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: out_deg[n] out; in_deg[n] out
void degrees(int n, const std::vector<int>& row_ptr, const std::vector<int>& col,
             std::vector<int>& out_deg, std::vector<int>& in_deg) {
    for (int v = 0; v < n; ++v) {
        out_deg[v] = row_ptr[v + 1] - row_ptr[v];
        in_deg[v] = 0;
    }
    for (int p = 0; p < row_ptr[n]; ++p) {
        in_deg[col[p]] += 1;
    }
}
