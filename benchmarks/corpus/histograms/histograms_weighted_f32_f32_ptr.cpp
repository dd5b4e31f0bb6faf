// Histogram: float weights summed into nbins bins of x in [0, 1), float bins added to the existing
// ones; pointer arguments.

// regrapht: n = 1<<24; nbins = 1024; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(0, 1)
// regrapht: w[n] in ~ uniform(0, 1); hist[nbins] inout ~ uniform(0, 1)
void weighted_histogram_f32(int n, int nbins, const float* x, const float* w, float* hist) {
    float scale = (float)nbins;
    for (int i = 0; i < n; ++i) {
        int b = (int)(x[i] * scale);
        if (b < 0) b = 0;
        if (b >= nbins) b = nbins - 1;
        hist[b] += w[i];
    }
}
