// Naive DFT of a complex signal with std::complex<float>.
#include <cmath>
#include <complex>

// regrapht: n = 2048; atol = 1e-2; rtol = 1e-3; x[n] in; X[n] out
void dft_complex(int n, const std::complex<float>* x, std::complex<float>* X) {
    for (int k = 0; k < n; ++k) {
        std::complex<float> acc(0.0f, 0.0f);
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            float angle = -6.283185307179586f * (float)r / (float)n;
            acc += x[j] * std::complex<float>(std::cos(angle), std::sin(angle));
        }
        X[k] = acc;
    }
}
