// Sorting: the stable sorted position of each int element, by counting the smaller ones (O(n^2));
// pointer arguments.

// regrapht: n = 8192; x[n] in ~ int(-1000, 1000); rank[n] out
void rank_i32(int n, const int* x, int* rank) {
    for (int i = 0; i < n; ++i) {
        int r = 0;
        for (int j = 0; j < n; ++j) {
            if (x[j] < x[i] || (x[j] == x[i] && j < i)) r++;
        }
        rank[i] = r;
    }
}
