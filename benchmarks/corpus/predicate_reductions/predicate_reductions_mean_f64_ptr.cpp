// Predicate reduction: the mean of double values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
double mean_f64(int n, const double* x) {
    if (n <= 0) return 0;
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    return s / (double)n;
}
