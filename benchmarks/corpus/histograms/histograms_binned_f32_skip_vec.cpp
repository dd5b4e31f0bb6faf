// Histogram: float values into nbins equal bins over [lo, hi); values outside [lo, hi) are skipped;
// vector arguments.
#include <vector>

// regrapht: n = 1<<24; nbins = 1024; lo = -1; hi = 1; x[n] in ~ uniform(-1.5, 1.5); hist[nbins] out
void histogram_skip_f32(int nbins, float lo, float hi, const std::vector<float>& x,
                        std::vector<int>& hist) {
    const int n = static_cast<int>(x.size());
    float scale = (float)nbins / (hi - lo);
    for (int b = 0; b < nbins; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < lo || x[i] >= hi) continue;
        int b = (int)((x[i] - lo) * scale);
        if (b > nbins - 1) b = nbins - 1;
        hist[b] += 1;
    }
}
