// One top-down BFS step: every frontier vertex marks its unvisited neighbours in the next frontier
// (unsigned char flags).

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: frontier[n] in ~ int(0, 1); visited[n] in ~ int(0, 1); next[n] inout ~ int(0, 0)
void bfs_expand_push(int n, const int* offsets, const int* adj, const unsigned char* frontier,
                     const unsigned char* visited, unsigned char* next) {
    for (int u = 0; u < n; ++u) {
        if (!frontier[u]) {
            continue;
        }
        for (int p = offsets[u]; p < offsets[u + 1]; ++p) {
            int v = adj[p];
            if (!visited[v]) {
                next[v] = 1;
            }
        }
    }
}
