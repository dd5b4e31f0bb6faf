// Integer map: the parity of a byte, bit by bit, unsigned char, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 255); y[n] out
void parity8_map(int n, const std::vector<unsigned char>& x, std::vector<unsigned char>& y) {
    for (int i = 0; i < n; ++i) {
        unsigned char p = 0;
        for (unsigned char v = x[i]; v != 0; v >>= 1) {
            p ^= v & 1;
        }
        y[i] = p;
    }
}
