// Predicate reduction: whether any element is above a threshold, from a count of double values;
// pointer arguments.

// regrapht: n = 1<<25; t = 0.5; x[n] in ~ uniform(-1, 1)
bool anygt_f64(int n, double t, const double* x) {
    int c = 0;
    for (int i = 0; i < n; ++i) {
        c += x[i] > t ? 1 : 0;
    }
    return c > 0;
}
