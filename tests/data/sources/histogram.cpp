// 256-bin histogram of 8-bit pixels. The bin index comes from the data, so the
// length of `bins` cannot be inferred: the annotation states it.
#include <cstdint>

// regrapht: n = 1<<22; bins[256] out
void histogram(int n, const uint8_t* pixels, int* bins) {
    for (int b = 0; b < 256; ++b) {
        bins[b] = 0;
    }
    for (int i = 0; i < n; ++i) {
        bins[pixels[i]]++;
    }
}
