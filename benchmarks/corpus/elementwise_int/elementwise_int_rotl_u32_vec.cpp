// Integer map: a left rotation by r bits, unsigned int, vector arguments.
#include <vector>

// regrapht: n = 1<<25; r = 13; x[n] in ~ int(0, 4000000000); y[n] out
void rotl_map(int n, unsigned int r, const std::vector<unsigned int>& x,
              std::vector<unsigned int>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = (x[i] << r) | (x[i] >> (32u - r));
    }
}
