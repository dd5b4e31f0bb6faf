// Histogram: 256-bin counts of unsigned char values, added to the existing counts, long long bins;
// vector arguments.
#include <vector>

// regrapht: n = 1<<25; data[n] in ~ int(0, 255); hist[256] inout ~ int(0, 100)
void histogram_u8_i64(const std::vector<unsigned char>& data, std::vector<long long>& hist) {
    const int n = static_cast<int>(data.size());
    for (int i = 0; i < n; ++i) {
        hist[data[i]]++;
    }
}
