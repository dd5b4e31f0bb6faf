// Histogram: double values into nbins equal bins over [lo, hi); values outside go to the end bins;
// vector arguments.
#include <vector>

// regrapht: n = 1<<24; nbins = 1024; lo = -1; hi = 1; x[n] in ~ uniform(-1, 1); hist[nbins] out
void histogram_clamp_f64(int nbins, double lo, double hi, const std::vector<double>& x,
                         std::vector<int>& hist) {
    const int n = static_cast<int>(x.size());
    double scale = (double)nbins / (hi - lo);
    for (int b = 0; b < nbins; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        int b = (int)((x[i] - lo) * scale);
        if (b < 0) b = 0;
        if (b > nbins - 1) b = nbins - 1;
        hist[b] += 1;
    }
}
