// Integer map: the number of set bits, counted bit by bit, unsigned int and int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ int(0, 4000000000); y[n] out
void popcount_map(int n, const std::vector<unsigned int>& x, std::vector<int>& y) {
    for (int i = 0; i < n; ++i) {
        int count = 0;
        for (unsigned int v = x[i]; v != 0u; v >>= 1) {
            count += (int)(v & 1u);
        }
        y[i] = count;
    }
}
