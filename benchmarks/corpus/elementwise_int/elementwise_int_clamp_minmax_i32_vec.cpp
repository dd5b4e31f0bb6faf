// Integer map: a clamp into [lo, hi] with std::min and std::max, int, vector arguments.
#include <algorithm>
#include <vector>

// regrapht: n = 1<<24; lo = 0; hi = 255; x[n] in; y[n] out
void clamp_minmax_map(int n, int lo, int hi, const std::vector<int>& x, std::vector<int>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = std::min(std::max(x[i], lo), hi);
    }
}
