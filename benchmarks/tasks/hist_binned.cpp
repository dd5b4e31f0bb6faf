// Histogram of floats in [0, 1) into nbins bins (bin = x * nbins, clamped), counts added
// to the existing ones. The map rewriter refuses the data-indexed update; the shared-update
// rewriters count into per-block bins (privatization) or with plain atomicAdd.
// regrapht: n = 1<<24; nbins = 1024; x[n] in ~ uniform(0, 1); hist[nbins] inout ~ int(0, 100)
void histogram_f32(int n, int nbins, const float* x, int* hist) {
    for (int i = 0; i < n; ++i) {
        int b = (int)(x[i] * (float)nbins);
        if (b < 0) b = 0;
        if (b > nbins - 1) b = nbins - 1;
        hist[b] += 1;
    }
}
