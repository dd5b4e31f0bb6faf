// Search: for each query, how many elements of an unsorted int array are smaller (its lower_bound
// once sorted), by a linear scan; pointer arguments.

// regrapht: m = 8192; k = 8192; a[m] in ~ int(0, 1000000); q[k] in ~ int(0, 1000000); pos[k] out
void linear_rank_i32(int m, int k, const int* a, const int* q, int* pos) {
    for (int j = 0; j < k; ++j) {
        int below = 0;
        for (int i = 0; i < m; ++i) {
            if (a[i] < q[j]) below++;
        }
        pos[j] = below;
    }
}
