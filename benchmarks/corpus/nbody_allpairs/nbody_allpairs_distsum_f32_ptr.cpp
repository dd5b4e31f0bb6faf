// Sum of Euclidean distances from every 3-D point to all points, float.
#include <cmath>

// regrapht: n = 8192; px[n] in; py[n] in; pz[n] in; total[n] out
void distance_sums(int n, const float* px, const float* py, const float* pz, float* total) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = px[i] - px[j];
            float dy = py[i] - py[j];
            float dz = pz[i] - pz[j];
            acc += sqrtf(dx * dx + dy * dy + dz * dz);
        }
        total[i] = acc;
    }
}
