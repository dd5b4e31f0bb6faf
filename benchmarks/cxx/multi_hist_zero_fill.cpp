#include <cstdint>
#include <cstddef>

// Histogram of byte values folded into nbins bins: zero the bins, then count.
// regrapht: n = 1<<20; nbins = 64
void build_histogram(const uint8_t* data, size_t n, int* bins, int nbins) {
    for (int b = 0; b < nbins; ++b) {
        bins[b] = 0;
    }
    for (size_t i = 0; i < n; ++i) {
        bins[data[i] % nbins]++;
    }
}
