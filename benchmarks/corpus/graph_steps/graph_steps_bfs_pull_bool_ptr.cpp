// One bottom-up BFS step: an unvisited vertex joins the next frontier when any neighbour is in the
// frontier (bool flags).

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in; frontier[n] in
// regrapht: visited[n] in; next[n] out
void bfs_expand(int n, const int* offsets, const int* adj, const bool* frontier,
                const bool* visited, bool* next) {
    for (int v = 0; v < n; ++v) {
        bool found = false;
        if (!visited[v]) {
            for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
                if (frontier[adj[p]]) {
                    found = true;
                    break;
                }
            }
        }
        next[v] = found;
    }
}
