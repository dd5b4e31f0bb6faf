// Histogram: per-channel 256-bin counts of interleaved RGBA bytes, one histogram per channel;
// pointer arguments.

// regrapht: n = 1<<23; pixels[4*n] in ~ int(0, 255); hist[4*256] out
void histogram_rgba(int n, const unsigned char* pixels, unsigned int* hist) {
    for (int b = 0; b < 4 * 256; ++b) hist[b] = 0u;
    for (int i = 0; i < n; ++i) {
        for (int c = 0; c < 4; ++c) {
            hist[c * 256 + pixels[4 * i + c]]++;
        }
    }
}
