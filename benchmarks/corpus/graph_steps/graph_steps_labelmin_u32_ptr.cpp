// One label-propagation step for connected components: each vertex takes the smallest unsigned int
// label among itself and its neighbours.

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: label[n] in ~ int(0, 1000000); next[n] out
void label_min_step(int n, const int* offsets, const int* adj, const unsigned int* label,
                    unsigned int* next) {
    for (int v = 0; v < n; ++v) {
        unsigned int best = label[v];
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
            unsigned int l = label[adj[p]];
            if (l < best) {
                best = l;
            }
        }
        next[v] = best;
    }
}
