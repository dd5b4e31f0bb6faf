/* One pull-style PageRank step over a graph stored as adjacency lists (CSR). */

// regrapht: n = 1<<18; e = n*8; offsets[n+1] in ~ graph(adj=sources); sources[e] in; rank[n] in ~ uniform(0, 1); out_degree[n] in ~ int(1, 64)
void pagerank_step(int n, const long *offsets, const int *sources, const float *rank,
                   const int *out_degree, float *next, float damping)
{
    for (int v = 0; v < n; ++v) {
        float acc = 0.0f;
        for (long k = offsets[v]; k < offsets[v + 1]; ++k) {
            int u = sources[k];
            acc += rank[u] / (float)out_degree[u];
        }
        next[v] = (1.0f - damping) / (float)n + damping * acc;
    }
}
