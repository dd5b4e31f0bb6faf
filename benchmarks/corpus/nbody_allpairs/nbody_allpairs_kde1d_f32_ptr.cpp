// 1-D Gaussian kernel density estimate of m query points against n samples, float.
#include <cmath>

// regrapht: m = 4096; n = 4096; inv2h2 = 50.0; q[m] in; s[n] in; dens[m] out
void kde(int m, int n, float inv2h2, const float* q, const float* s, float* dens) {
    for (int i = 0; i < m; ++i) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            float d = q[i] - s[j];
            acc += expf(-d * d * inv2h2);
        }
        dens[i] = acc / (float)n;
    }
}
