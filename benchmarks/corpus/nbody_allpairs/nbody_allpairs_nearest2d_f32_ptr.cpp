// Brute-force distance from every 2-D point to its nearest other point, float (a lone point gets
// sqrt(FLT_MAX)).
#include <cfloat>
#include <cmath>

// regrapht: n = 8192; px[n] in; py[n] in; nn[n] out
void nearest_distance(int n, const float* px, const float* py, float* nn) {
    for (int i = 0; i < n; ++i) {
        float best = FLT_MAX;
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            float dx = px[i] - px[j];
            float dy = py[i] - py[j];
            float d2 = dx * dx + dy * dy;
            if (d2 < best) {
                best = d2;
            }
        }
        nn[i] = sqrtf(best);
    }
}
