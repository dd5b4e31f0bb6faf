// Histogram: float weights summed into nbins bins of x in [0, 1), double bins added to the existing
// ones; vector arguments.
#include <vector>

// regrapht: n = 1<<24; nbins = 1024; x[n] in ~ uniform(0, 1); w[n] in ~ uniform(0, 1)
// regrapht: hist[nbins] inout ~ uniform(0, 1)
void weighted_histogram_f32(int nbins, const std::vector<float>& x, const std::vector<float>& w,
                            std::vector<double>& hist) {
    const int n = static_cast<int>(x.size());
    float scale = (float)nbins;
    for (int i = 0; i < n; ++i) {
        int b = (int)(x[i] * scale);
        if (b < 0) b = 0;
        if (b >= nbins) b = nbins - 1;
        hist[b] += w[i];
    }
}
