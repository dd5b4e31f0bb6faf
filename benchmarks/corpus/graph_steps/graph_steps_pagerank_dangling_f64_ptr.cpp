// One pull-style PageRank iteration over in-edges in CSR, inverse out-degrees and dangling mass,
// double.

// regrapht: n = 1<<20; nnz = n*16; damping = 0.85; dangling = 0.25
// regrapht: row_ptr[n+1] in ~ csr(col=col, cols=n); col[nnz] in; rank[n] in ~ uniform(0, 1)
// regrapht: inv_out_deg[n] in ~ uniform(0, 1); next[n] out
void pagerank_pull(int n, double damping, double dangling, const int* row_ptr, const int* col,
                   const double* rank, const double* inv_out_deg, double* next) {
    const double base = (1.0 - damping) / (double)n;
    for (int v = 0; v < n; ++v) {
        double sum = 0.0;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            int u = col[p];
            sum += rank[u] * inv_out_deg[u];
        }
        next[v] = base + damping * (sum + dangling / (double)n);
    }
}
