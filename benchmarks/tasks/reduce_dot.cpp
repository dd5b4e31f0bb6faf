// Reduction: dot product of two float vectors accumulated in double.
// regrapht: n = 1<<24; x[n] in; y[n] in
double dot_f64acc(int n, const float* x, const float* y) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) {
        s += (double)x[i] * (double)y[i];
    }
    return s;
}
