// Predicate reduction: whether all elements lie in [lo, hi], from a count of int values; pointer
// arguments.

// regrapht: n = 1<<25; lo = -1000; hi = 1000; x[n] in ~ int(-1000, 1000)
int allin_i32(int n, int lo, int hi, const int* x) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] >= lo && x[i] <= hi) c++;
    }
    return c == n ? 1 : 0;
}
