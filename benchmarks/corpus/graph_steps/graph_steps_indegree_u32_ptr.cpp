// In-degree histogram of a CSR graph over its column indices, unsigned int counts.

// regrapht: n = 1<<20; nnz = n*16; row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in
// regrapht: in_deg[n] out
void in_degrees(int n, const int* row_ptr, const int* col, unsigned int* in_deg) {
    for (int v = 0; v < n; ++v) {
        in_deg[v] = 0;
    }
    for (int v = 0; v < n; ++v) {
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            ++in_deg[col[p]];
        }
    }
}
