// Naive DFT of a real signal into real and imaginary parts, float.
#include <cmath>

// regrapht: n = 2048; atol = 1e-2; rtol = 1e-3; x[n] in; re[n] out; im[n] out
void dft_real(int n, const float* x, float* re, float* im) {
    for (int k = 0; k < n; ++k) {
        float sr = 0.0f;
        float si = 0.0f;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            float angle = 6.283185307179586f * (float)r / (float)n;
            sr += x[j] * cosf(angle);
            si -= x[j] * sinf(angle);
        }
        re[k] = sr;
        im[k] = si;
    }
}
