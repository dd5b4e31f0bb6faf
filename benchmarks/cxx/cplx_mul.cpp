#include <vector>
#include <complex>
#include <cstddef>

// Pointwise product of two spectra (the middle step of an FFT convolution).
void complex_multiply(const std::vector<std::complex<float>>& a,
                      const std::vector<std::complex<float>>& b,
                      std::vector<std::complex<float>>& c) {
    for (size_t i = 0; i < c.size(); ++i) {
        c[i] = a[i] * b[i];
    }
}
