// Neighbour aggregation over a CSR graph: the max of a float value over each vertex's neighbours (0
// for isolated vertices).
#include <cmath>

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: val[n] in ~ uniform(-1, 1); out[n] out
void neighbour_max(int n, const int* row_ptr, const int* col, const float* val, float* out) {
    for (int v = 0; v < n; ++v) {
        float acc = -INFINITY;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            acc = fmaxf(acc, val[col[p]]);
        }
        out[v] = row_ptr[v + 1] > row_ptr[v] ? acc : 0.0f;
    }
}
