// Integer map: shifts and masks that repack the low byte and a nibble, int, vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(-100000, 100000); y[n] out
void shiftmask_map(int n, const std::vector<int>& x, std::vector<int>& y) {
    for (int i = 0; i < n; ++i) {
        int v = x[i];
        y[i] = ((v & 0xff) << 4) | ((v >> 8) & 0xf);
    }
}
