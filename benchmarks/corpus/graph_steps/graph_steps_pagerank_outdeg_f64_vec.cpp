// One pull-style PageRank iteration over in-edges in CSR, ranks divided by out-degrees, double.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; damping = 0.85; row_ptr[n+1] in ~ csr(col=col, cols=n)
// regrapht: col[nnz] in; rank[n] in ~ uniform(0, 1); out_deg[n] in ~ int(1, 64); next[n] out
void pagerank_pull(int n, double damping, const std::vector<int>& row_ptr,
                   const std::vector<int>& col, const std::vector<double>& rank,
                   const std::vector<int>& out_deg, std::vector<double>& next) {
    const double base = (1.0 - damping) / (double)n;
    for (int v = 0; v < n; ++v) {
        double sum = 0.0;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            int u = col[p];
            sum += rank[u] / (double)out_deg[u];
        }
        next[v] = base + damping * (sum);
    }
}
