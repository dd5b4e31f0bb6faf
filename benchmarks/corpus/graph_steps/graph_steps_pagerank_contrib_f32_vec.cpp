// One pull-style PageRank iteration over in-edges in CSR, precomputed contributions, float.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; damping = 0.85; row_ptr[n+1] in ~ csr(col=col, cols=n)
// regrapht: col[nnz] in; contrib[n] in ~ uniform(0, 0.1); next[n] out
void pagerank_pull(int n, float damping, const std::vector<int>& row_ptr,
                   const std::vector<int>& col, const std::vector<float>& contrib,
                   std::vector<float>& next) {
    const float base = (1.0f - damping) / (float)n;
    for (int v = 0; v < n; ++v) {
        float sum = 0.0f;
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            int u = col[p];
            sum += contrib[u];
        }
        next[v] = base + damping * (sum);
    }
}
