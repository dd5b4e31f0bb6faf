// Predicate reduction: the population variance, two passes (mean, then squared deviations) of int
// values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ int(-1000, 1000)
double variance_i32(int n, const int* x) {
    if (n <= 0) return 0;
    long long s = 0LL;
    for (int i = 0; i < n; ++i) {
        s += x[i];
    }
    double m = (double)s / (double)n;
    double q = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = x[i] - m;
        q += d * d;
    }
    return q / (double)n;
}
