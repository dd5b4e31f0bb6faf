// Neighbour aggregation over a CSR graph: the sum of a double value over each vertex's neighbours.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: val[n] in ~ uniform(-1, 1); out[n] out
void neighbour_sum(int n, const std::vector<int>& row_ptr, const std::vector<int>& col,
                   const std::vector<double>& val, std::vector<double>& out) {
    for (int v = 0; v < n; ++v) {
        double acc = 0.0;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            acc += val[col[p]];
        }
        out[v] = acc;
    }
}
