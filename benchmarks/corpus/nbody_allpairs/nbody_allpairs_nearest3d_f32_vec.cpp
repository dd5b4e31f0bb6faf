// Brute-force distance from every 3-D point to its nearest other point, float (a lone point gets
// sqrt(FLT_MAX)).
#include <cfloat>
#include <cmath>
#include <vector>

// regrapht: n = 8192; px[n] in; py[n] in; pz[n] in; nn[n] out
void nearest_distance(int n, const std::vector<float>& px, const std::vector<float>& py,
                      const std::vector<float>& pz, std::vector<float>& nn) {
    for (int i = 0; i < n; ++i) {
        float best = FLT_MAX;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            float dx = px[i] - px[j];
            float dy = py[i] - py[j];
            float dz = pz[i] - pz[j];
            float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < best) {
                best = d2;
            }
        }
        nn[i] = sqrtf(best);
    }
}
