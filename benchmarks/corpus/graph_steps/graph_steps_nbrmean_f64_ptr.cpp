// Neighbour aggregation over a CSR graph: the mean of a double value over each vertex's neighbours
// (0 for isolated vertices).

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: val[n] in ~ uniform(-1, 1); out[n] out
void neighbour_mean(int n, const int* row_ptr, const int* col, const double* val, double* out) {
    for (int v = 0; v < n; ++v) {
        double acc = 0.0;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            acc += val[col[p]];
        }
        out[v] = row_ptr[v + 1] > row_ptr[v] ? acc / (double)(row_ptr[v + 1] - row_ptr[v]) : 0.0;
    }
}
