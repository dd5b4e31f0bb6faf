// Transcendental map: the entropy term x*log(x) of positive inputs, float, vector arguments, std::
// overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(0.001, 10); y[n] out
void xlogx_map(int n, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = x[i] * std::log(x[i]);
    }
}
