// Naive DCT-II, X_k = sum_j x_j cos(pi (2j+1) k / 2n), float.
#include <cmath>

// regrapht: n = 4096; atol = 1e-2; rtol = 1e-3; x[n] in; X[n] out
void dct2(int n, const float* x, float* X) {
    for (int k = 0; k < n; ++k) {
        float acc = 0.0f;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)(2 * j + 1) * k % (4 * n));
            acc += x[j] * cosf(3.141592653589793f * (float)r / (float)(2 * n));
        }
        X[k] = acc;
    }
}
