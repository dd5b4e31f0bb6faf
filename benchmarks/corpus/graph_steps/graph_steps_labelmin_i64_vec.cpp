// One label-propagation step for connected components: each vertex takes the smallest long long
// label among itself and its neighbours.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: label[n] in ~ int(0, 1000000); next[n] out
void label_min_step(int n, const std::vector<int>& offsets, const std::vector<int>& adj,
                    const std::vector<long long>& label, std::vector<long long>& next) {
    for (int v = 0; v < n; ++v) {
        long long best = label[v];
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
            long long l = label[adj[p]];
            if (l < best) {
                best = l;
            }
        }
        next[v] = best;
    }
}
