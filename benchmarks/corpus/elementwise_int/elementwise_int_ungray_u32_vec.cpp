// Integer map: the inverse Gray code, a prefix xor over the bits, unsigned int, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 4000000000); y[n] out
void ungray_map(int n, const std::vector<unsigned int>& x, std::vector<unsigned int>& y) {
    for (int i = 0; i < n; ++i) {
        unsigned int v = x[i];
        for (unsigned int s = 1u; s < 32u; s <<= 1) {
            v ^= v >> s;
        }
        y[i] = v;
    }
}
