// One-sided power spectrum |X_k|^2 / n of a real signal by a naive DFT, float.
#include <cmath>
#include <vector>

// regrapht: n = 4096; atol = 1e-2; rtol = 1e-3; x[n] in; power[n/2+1] out
void power_spectrum(int n, const std::vector<float>& x, std::vector<float>& power) {
    for (int k = 0; k <= n / 2; ++k) {
        float sr = 0.0f;
        float si = 0.0f;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            float angle = 6.283185307179586f * (float)r / (float)n;
            sr += x[j] * std::cos(angle);
            si -= x[j] * std::sin(angle);
        }
        power[k] = (sr * sr + si * si) / (float)n;
    }
}
