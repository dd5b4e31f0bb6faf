// Integer map: the bytes in reverse order, unsigned int, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 4000000000); y[n] out
void byteswap_map(int n, const std::vector<unsigned int>& x, std::vector<unsigned int>& y) {
    for (int i = 0; i < n; ++i) {
        unsigned int v = x[i];
        y[i] = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    }
}
