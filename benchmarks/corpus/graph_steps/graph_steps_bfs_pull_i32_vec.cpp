// One bottom-up BFS step: an unvisited vertex joins the next frontier when any neighbour is in the
// frontier (int flags).
#include <vector>

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: frontier[n] in ~ int(0, 1); visited[n] in ~ int(0, 1); next[n] out
void bfs_expand(int n, const std::vector<int>& offsets, const std::vector<int>& adj,
                const std::vector<int>& frontier, const std::vector<int>& visited,
                std::vector<int>& next) {
    for (int v = 0; v < n; ++v) {
        int found = 0;
        if (!visited[v]) {
            for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
                if (frontier[adj[p]]) {
                    found = 1;
                    break;
                }
            }
        }
        next[v] = found;
    }
}
