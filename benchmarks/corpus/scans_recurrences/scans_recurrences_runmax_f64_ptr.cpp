// Scan: running maximum of double values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ normal(0, 1); out[n] out
void runmax_f64(int n, const double* x, double* out) {
    if (n <= 0) return;
    double m = x[0];
    out[0] = m;
    for (int i = 1; i < n; ++i) {
        if (x[i] > m) m = x[i];
        out[i] = m;
    }
}
