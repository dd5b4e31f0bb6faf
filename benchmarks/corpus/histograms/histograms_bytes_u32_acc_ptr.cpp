// Histogram: 256-bin counts of unsigned char values, added to the existing counts, unsigned int
// bins; pointer arguments.

// regrapht: n = 1<<25; data[n] in ~ int(0, 255); hist[256] inout ~ int(0, 100)
void histogram_u8_u32(int n, const unsigned char* data, unsigned int* hist) {
    for (int i = 0; i < n; ++i) {
        hist[data[i]]++;
    }
}
