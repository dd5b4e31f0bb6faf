// Neighbour aggregation over a CSR graph: the sum of a int value over each vertex's neighbours.

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: val[n] in ~ int(-100, 100); out[n] out
void neighbour_sum(int n, const int* row_ptr, const int* col, const int* val, int* out) {
    for (int v = 0; v < n; ++v) {
        int acc = 0;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            acc += val[col[p]];
        }
        out[v] = acc;
    }
}
