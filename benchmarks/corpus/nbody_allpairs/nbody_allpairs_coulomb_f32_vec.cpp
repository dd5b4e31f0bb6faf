// Softened Coulomb potential at every charge from all the others, float.
#include <cmath>
#include <vector>

// regrapht: n = 4096; eps = 0.0001; atol = 2e-2; rtol = 1e-3; px[n] in; py[n] in; pz[n] in; q[n] in
// regrapht: phi[n] out
void coulomb_potential(int n, float eps, const std::vector<float>& px,
                       const std::vector<float>& py, const std::vector<float>& pz,
                       const std::vector<float>& q, std::vector<float>& phi) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            float dx = px[i] - px[j];
            float dy = py[i] - py[j];
            float dz = pz[i] - pz[j];
            acc += q[j] / sqrtf(dx * dx + dy * dy + dz * dz + eps);
        }
        phi[i] = q[i] * acc;
    }
}
