// One bottom-up BFS step: an unvisited vertex joins the next frontier when any neighbour is in the
// frontier (unsigned char flags).

// regrapht: n = 1<<20; nnz = n*16; offsets[n+1] in ~ graph(adj=adj); adj[nnz] in
// regrapht: frontier[n] in ~ int(0, 1); visited[n] in ~ int(0, 1); next[n] out
void bfs_expand(int n, const int* offsets, const int* adj, const unsigned char* frontier,
                const unsigned char* visited, unsigned char* next) {
    for (int v = 0; v < n; ++v) {
        unsigned char found = 0;
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
