// Transcendental map: sine and cosine, two outputs, double, vector arguments, std:: overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-8, 8); s[n] out; c[n] out
void sincos_map(int n, const std::vector<double>& x, std::vector<double>& s,
                std::vector<double>& c) {
    for (int i = 0; i < n; ++i) {
        s[i] = std::sin(x[i]);
        c[i] = std::cos(x[i]);
    }
}
