// Search: lower_bound of each query in a sorted int array (binary search); pointer arguments.

// regrapht: m = 1<<20; k = 1<<18; a[m] in ~ sorted(0, 1000000); q[k] in ~ int(0, 1000000)
// regrapht: pos[k] out
void lower_bound_i32(int m, int k, const int* a, const int* q, int* pos) {
    for (int j = 0; j < k; ++j) {
        int key = q[j];
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
