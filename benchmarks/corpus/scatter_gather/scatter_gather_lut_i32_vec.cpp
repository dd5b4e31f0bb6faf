// Indexed map: a 256-entry lookup table indexed by bytes, int, vector arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(0, 255); lut[256] in ~ int(-1000000, 1000000); out[n] out
void lut_i32(int n, const std::vector<unsigned char>& x, const std::vector<int>& lut,
             std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = lut[x[i]];
    }
}
