// Histogram: double weights summed into nbins bins of x in [0, 1), double bins added to the
// existing ones; pointer arguments.

// regrapht: n = 1<<24; nbins = 1024; x[n] in ~ uniform(0, 1); w[n] in ~ uniform(0, 1)
// regrapht: hist[nbins] inout ~ uniform(0, 1)
void weighted_histogram_f64(int n, int nbins, const double* x, const double* w, double* hist) {
    double scale = (double)nbins;
    for (int i = 0; i < n; ++i) {
        int b = (int)(x[i] * scale);
        if (b < 0) b = 0;
        if (b >= nbins) b = nbins - 1;
        hist[b] += w[i];
    }
}
