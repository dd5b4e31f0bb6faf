// Search: lower_bound of each query in a sorted float array (binary search); pointer arguments.

// regrapht: m = 1<<20; k = 1<<18; a[m] in ~ sorted(0, 1); q[k] in ~ uniform(0, 1); pos[k] out
void lower_bound_f32(int m, int k, const float* a, const float* q, int* pos) {
    for (int j = 0; j < k; ++j) {
        float key = q[j];
        int lo = 0;
        int hi = m;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        pos[j] = lo;
    }
}
