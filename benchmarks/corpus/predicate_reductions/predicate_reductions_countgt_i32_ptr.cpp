// Predicate reduction: the number of elements above a threshold of int values; pointer arguments.

// regrapht: n = 1<<24; t = 100; x[n] in ~ int(-1000, 1000)
long long countgt_i32(int n, int t, const int* x) {
    long long c = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) c++;
    }
    return c;
}
