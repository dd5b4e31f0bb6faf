// Sorting: counting sort of unsigned char keys (count, then write each value count times); vector
// arguments.
#include <vector>

// regrapht: n = 1<<25; keys[n] in ~ int(0, 255); out[n] out
void counting_sort_u8(const std::vector<unsigned char>& keys, std::vector<unsigned char>& out) {
    const int n = static_cast<int>(keys.size());
    int count[256] = {0};
    for (int i = 0; i < n; ++i) {
        count[keys[i]]++;
    }
    int at = 0;
    for (int v = 0; v < 256; ++v) {
        for (int c = 0; c < count[v]; ++c) {
            out[at++] = (unsigned char)v;
        }
    }
}
