// Transcendental map: a power x^p of non-negative inputs, double, vector arguments, std::
// overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<23; p = 2.2; x[n] in ~ uniform(0, 4); y[n] out
void pow_map(int n, double p, const std::vector<double>& x, std::vector<double>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = std::pow(x[i], p);
    }
}
