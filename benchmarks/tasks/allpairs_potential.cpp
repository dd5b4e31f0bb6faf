// All-pairs (n-body-like), O(n^2): softened potential at every point,
// phi[i] = sum_j 1 / sqrt(|p_i - p_j|^2 + eps). Positive terms: no cancellation.
#include <cmath>

// regrapht: n = 4096; eps = 0.01; px[n] in; py[n] in; pz[n] in; phi[n] out
void potential(int n, float eps, const float* px, const float* py, const float* pz,
               float* phi) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = px[i] - px[j];
            float dy = py[i] - py[j];
            float dz = pz[i] - pz[j];
            acc += 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps);
        }
        phi[i] = acc;
    }
}
