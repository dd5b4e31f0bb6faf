// Selection: stable partition of int values around a pivot into out (smaller ones first), returning
// how many are smaller; pointer arguments.

// regrapht: n = 1<<24; pivot = 250; x[n] in ~ int(-1000, 1000); out[n] out
int stable_partition_i32(int n, int pivot, const int* x, int* out) {
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < pivot) out[at++] = x[i];
    }
    for (int i = 0; i < n; ++i) {
        if (!(x[i] < pivot)) out[at++] = x[i];
    }
    return at;
}
