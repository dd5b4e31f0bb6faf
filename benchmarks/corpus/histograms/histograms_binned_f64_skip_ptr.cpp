// Histogram: double values into nbins equal bins over [lo, hi); values outside [lo, hi) are
// skipped; pointer arguments.

// regrapht: n = 1<<24; nbins = 1024; lo = -1; hi = 1; x[n] in ~ uniform(-1.5, 1.5); hist[nbins] out
void histogram_skip_f64(int n, int nbins, double lo, double hi, const double* x, int* hist) {
    double scale = (double)nbins / (hi - lo);
    for (int b = 0; b < nbins; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < lo || x[i] >= hi) continue;
        int b = (int)((x[i] - lo) * scale);
        if (b > nbins - 1) b = nbins - 1;
        hist[b] += 1;
    }
}
