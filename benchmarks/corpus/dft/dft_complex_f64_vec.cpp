// Naive DFT of a complex signal with std::complex<double>.
#include <cmath>
#include <complex>
#include <vector>

// regrapht: n = 2048; x[n] in; X[n] out
void dft_complex(int n, const std::vector<std::complex<double>>& x,
                 std::vector<std::complex<double>>& X) {
    for (int k = 0; k < n; ++k) {
        std::complex<double> acc(0.0, 0.0);
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            double angle = -6.283185307179586 * (double)r / (double)n;
            acc += x[j] * std::complex<double>(std::cos(angle), std::sin(angle));
        }
        X[k] = acc;
    }
}
