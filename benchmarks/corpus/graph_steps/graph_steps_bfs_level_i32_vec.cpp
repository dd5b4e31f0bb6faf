// One level-synchronous BFS step on a distance array: an unreached vertex (-1) with a neighbour at
// distance level gets level + 1.
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; level = 2; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: dist[n] inout ~ int(-1, 3)
void bfs_level_step(int n, int level, const std::vector<int>& offsets,
                    const std::vector<int>& adj, std::vector<int>& dist) {
    for (int v = 0; v < n; ++v) {
        if (dist[v] != -1) {
            continue;
        }
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
            if (dist[adj[p]] == level) {
                dist[v] = level + 1;
                break;
            }
        }
    }
}
