// Naive inverse DFT of a complex spectrum (separate re/im arrays), scaled by 1/n, float.
#include <cmath>
#include <vector>

// regrapht: n = 2048; atol = 1e-2; rtol = 1e-3; re[n] in; im[n] in; xr[n] out; xi[n] out
void idft(int n, const std::vector<float>& re, const std::vector<float>& im,
          std::vector<float>& xr, std::vector<float>& xi) {
    for (int j = 0; j < n; ++j) {
        float sr = 0.0f;
        float si = 0.0f;
        for (int k = 0; k < n; ++k) {
            int r = (int)((long long)j * k % n);
            float angle = 6.283185307179586f * (float)r / (float)n;
            float c = std::cos(angle);
            float s = std::sin(angle);
            sr += re[k] * c - im[k] * s;
            si += re[k] * s + im[k] * c;
        }
        xr[j] = sr / (float)n;
        xi[j] = si / (float)n;
    }
}
