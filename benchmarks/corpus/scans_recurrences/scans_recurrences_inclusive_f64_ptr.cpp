// Scan: inclusive prefix sum of double values; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1); out[n] out
void inclusive_f64(int n, const double* x, double* out) {
    double running = 0.0;
    for (int i = 0; i < n; ++i) {
        running += x[i];
        out[i] = running;
    }
}
