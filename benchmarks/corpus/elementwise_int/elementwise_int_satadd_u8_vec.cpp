// Integer map: a saturating add of two byte arrays, unsigned char, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 255); w[n] in ~ int(0, 255); y[n] out
void satadd_map(int n, const std::vector<unsigned char>& x, const std::vector<unsigned char>& w,
                std::vector<unsigned char>& y) {
    for (int i = 0; i < n; ++i) {
        int s = x[i] + w[i];
        y[i] = (unsigned char)(s > 255 ? 255 : s);
    }
}
