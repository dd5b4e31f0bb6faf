// Scan: running maximum of float values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 1); out[n] out
void runmax_f32(const std::vector<float>& x, std::vector<float>& out) {
    const int n = static_cast<int>(x.size());
    if (n <= 0) return;
    float m = x[0];
    out[0] = m;
    for (int i = 1; i < n; ++i) {
        if (x[i] > m) m = x[i];
        out[i] = m;
    }
}
