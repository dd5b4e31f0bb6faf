// Integer map: four xorshift32 rounds, unsigned int, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 4000000000); y[n] out
void xorshift_map(int n, const std::vector<unsigned int>& x, std::vector<unsigned int>& y) {
    for (int i = 0; i < n; ++i) {
        unsigned int h = x[i] | 1u;
        for (int r = 0; r < 4; ++r) {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
        }
        y[i] = h;
    }
}
