// Reduction: the dot product of two arrays of double values, written to out[0]; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); y[n] in ~ uniform(-1, 1); out[1] out
void dot_f64(int n, const double* x, const double* y, double* out) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += x[i] * y[i];
    }
    out[0] = s;
}
