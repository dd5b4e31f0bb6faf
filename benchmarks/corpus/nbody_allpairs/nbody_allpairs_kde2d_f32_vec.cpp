// 2-D Gaussian kernel density estimate of m query points against n samples, float.
#include <cmath>
#include <vector>

// regrapht: m = 4096; n = 8192; inv2h2 = 20.0; qx[m] in; qy[m] in; sx[n] in; sy[n] in; dens[m] out
void kde2d(int m, int n, float inv2h2, const std::vector<float>& qx,
           const std::vector<float>& qy, const std::vector<float>& sx,
           const std::vector<float>& sy, std::vector<float>& dens) {
    const float norm = inv2h2 / (3.141592653589793f * (float)n);
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = qx[i] - sx[j];
            float dy = qy[i] - sy[j];
            acc += expf(-(dx * dx + dy * dy) * inv2h2);
        }
        dens[i] = acc * norm;
    }
}
