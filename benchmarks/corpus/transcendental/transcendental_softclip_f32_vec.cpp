// Transcendental map: soft clipping a*tanh(x/a), float, vector arguments, std:: overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; a = 2.5; x[n] in ~ uniform(-8, 8); y[n] out
void softclip_map(int n, float a, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * std::tanh(x[i] / a);
    }
}
