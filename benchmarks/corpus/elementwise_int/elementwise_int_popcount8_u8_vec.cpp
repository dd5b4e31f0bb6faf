// Integer map: the number of set bits of a byte, unsigned char, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 255); y[n] out
void popcount8_map(int n, const std::vector<unsigned char>& x, std::vector<unsigned char>& y) {
    for (int i = 0; i < n; ++i) {
        unsigned char v = x[i];
        unsigned char count = 0;
        for (int b = 0; b < 8; ++b) {
            count += (v >> b) & 1;
        }
        y[i] = count;
    }
}
