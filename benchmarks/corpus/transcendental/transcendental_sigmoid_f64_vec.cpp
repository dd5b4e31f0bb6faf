// Transcendental map: the logistic sigmoid, double, vector arguments, std:: overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-10, 10); y[n] out
void sigmoid_map(int n, const std::vector<double>& x, std::vector<double>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 1.0 / (1.0 + std::exp(-x[i]));
    }
}
