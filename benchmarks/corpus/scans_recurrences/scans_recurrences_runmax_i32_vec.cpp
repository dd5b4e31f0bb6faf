// Scan: running maximum of int values; vector arguments.
#include <vector>

// regrapht: n = 1<<25; x[n] in ~ int(-1000000, 1000000); out[n] out
void runmax_i32(const std::vector<int>& x, std::vector<int>& out) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return;
    int m = x[0];
    out[0] = m;
    for (int i = 1; i < n; ++i) {
        if (x[i] > m) m = x[i];
        out[i] = m;
    }
}
