// Histogram: 256-bin counts of unsigned char values, int bins; vector arguments.
#include <vector>

// regrapht: n = 1<<25; data[n] in ~ int(0, 255); hist[256] out
void histogram_u8_i32(const std::vector<unsigned char>& data, std::vector<int>& hist) {
    const int n = static_cast<int>(data.size());
    for (int b = 0; b < 256; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        hist[data[i]]++;
    }
}
