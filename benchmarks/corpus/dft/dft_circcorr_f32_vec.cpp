// Circular cross-correlation of two length-n signals at every lag, float.
#include <vector>

// regrapht: n = 8192; atol = 1e-2; rtol = 1e-3; a[n] in; b[n] in; out[n] out
void circular_correlation(int n, const std::vector<float>& a, const std::vector<float>& b,
                          std::vector<float>& out) {
    for (int lag = 0; lag < n; ++lag) {
        float acc = 0.0f;
        for (int i = 0; i < n; ++i) {
            acc += a[i] * b[(i + lag) % n];
        }
        out[lag] = acc;
    }
}
