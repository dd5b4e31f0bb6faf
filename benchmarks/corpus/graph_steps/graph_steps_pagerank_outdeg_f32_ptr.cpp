// One pull-style PageRank iteration over in-edges in CSR, ranks divided by out-degrees, float.

// regrapht: n = 1<<20; nnz = n*16; damping = 0.85; row_ptr[n+1] in ~ csr(col=col, cols=n)
// regrapht: col[nnz] in; rank[n] in ~ uniform(0, 1); out_deg[n] in ~ int(1, 64); next[n] out
void pagerank_pull(int n, float damping, const int* row_ptr, const int* col, const float* rank,
                   const int* out_deg, float* next) {
    const float base = (1.0f - damping) / (float)n;
    for (int v = 0; v < n; ++v) {
        float sum = 0.0f;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            int u = col[p];
            sum += rank[u] / (float)out_deg[u];
        }
        next[v] = base + damping * (sum);
    }
}
