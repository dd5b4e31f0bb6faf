// Reduction: the sum of squares of double values, returned; pointer arguments.

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1)
double sumsq_f64(int n, const double* x) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += x[i] * x[i];
    }
    return s;
}
