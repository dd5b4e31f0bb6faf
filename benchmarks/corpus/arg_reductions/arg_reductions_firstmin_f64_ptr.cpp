// Arg-reduction: the first index of the minimum, by a min pass and a search pass of double values;
// pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
int firstmin_f64(int n, const double* x) {
    if (n <= 0) return -1;
    double lo = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < lo) lo = x[i];
    }
    for (int i = 0; i < n; ++i) {
        if (x[i] == lo) return i;
    }
    return -1;
}
