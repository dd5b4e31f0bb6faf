// One label-propagation step for connected components: each vertex takes the smallest int label
// among itself and its neighbours, returning how many labels changed.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: label[n] in ~ int(0, 1000000); next[n] out
int label_min_step(int n, const std::vector<int>& offsets, const std::vector<int>& adj,
                   const std::vector<int>& label, std::vector<int>& next) {
    int changed = 0;
    for (int v = 0; v < n; ++v) {
        int best = label[v];
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
            int l = label[adj[p]];
            if (l < best) {
                best = l;
            }
        }
        next[v] = best;
        changed += best != label[v];
    }
    return changed;
}
