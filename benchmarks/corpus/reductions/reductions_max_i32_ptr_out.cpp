// Reduction: the maximum of int values, written to out[0]; pointer arguments.
#include <climits>

// regrapht: n = 1<<25; x[n] in ~ int(-1000000, 1000000); out[1] out
void max_i32(int n, const int* x, int* out) {
    int s = INT_MIN;
    for (int i = 0; i < n; ++i) {
        if (x[i] > s) s = x[i];
    }
    out[0] = s;
}
