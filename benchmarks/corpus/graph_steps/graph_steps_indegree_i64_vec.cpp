// In-degree histogram of a CSR graph over its column indices, long long counts.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: in_deg[n] out
void in_degrees(int n, const std::vector<int>& row_ptr, const std::vector<int>& col,
                std::vector<long long>& in_deg) {
    for (int v = 0; v < n; ++v) {
        in_deg[v] = 0;
    }
    for (int v = 0; v < n; ++v) {
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            ++in_deg[col[p]];
        }
    }
}
