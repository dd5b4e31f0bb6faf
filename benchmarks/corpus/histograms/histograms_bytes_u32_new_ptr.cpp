// Histogram: 256-bin counts of unsigned char values, unsigned int bins; pointer arguments.

// regrapht: n = 1<<25; data[n] in ~ int(0, 255); hist[256] out
void histogram_u8_u32(int n, const unsigned char* data, unsigned int* hist) {
    for (int b = 0; b < 256; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        hist[data[i]]++;
    }
}
