// Neighbour aggregation over a CSR graph: the mean of a float value over each vertex's neighbours
// (0 for isolated vertices).
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; atol = 1e-3; rtol = 1e-3; row_ptr[n+1] in ~ csr(col=col, cols=n)
// regrapht: col[nnz] in; val[n] in ~ uniform(-1, 1); out[n] out
void neighbour_mean(int n, const std::vector<int>& row_ptr, const std::vector<int>& col,
                    const std::vector<float>& val, std::vector<float>& out) {
    for (int v = 0; v < n; ++v) {
        float acc = 0.0f;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            acc += val[col[p]];
        }
        out[v] = row_ptr[v + 1] > row_ptr[v] ? acc / (float)(row_ptr[v + 1] - row_ptr[v]) : 0.0f;
    }
}
