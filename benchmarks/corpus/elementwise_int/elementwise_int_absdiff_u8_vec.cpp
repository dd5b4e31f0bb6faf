// Integer map: the absolute difference of two byte arrays, unsigned char, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(0, 255); w[n] in ~ int(0, 255); y[n] out
void absdiff_map(int n, const std::vector<unsigned char>& x, const std::vector<unsigned char>& w,
                 std::vector<unsigned char>& y) {
    for (int i = 0; i < n; ++i) {
        int d = (int)x[i] - (int)w[i];
        y[i] = (unsigned char)(d < 0 ? -d : d);
    }
}
