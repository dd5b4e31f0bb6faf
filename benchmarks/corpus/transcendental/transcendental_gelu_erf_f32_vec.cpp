// Transcendental map: exact GELU with erf, float, vector arguments, std:: overloads.
#include <cmath>
#include <vector>

// regrapht: n = 1<<22; x[n] in ~ uniform(-5, 5); y[n] out
void gelu_erf_map(int n, const std::vector<float>& x, std::vector<float>& y) {
    for (int i = 0; i < n; ++i) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + std::erf(v * 0.7071067811865476f));
    }
}
