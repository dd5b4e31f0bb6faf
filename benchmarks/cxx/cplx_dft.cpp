#include <vector>
#include <complex>
#include <cmath>
#include <cstddef>

// Direct O(n^2) discrete Fourier transform; each output bin is independent.
// regrapht: n = 1<<12; in[n] in; out[n] out
void dft(const std::vector<std::complex<float>>& in, std::vector<std::complex<float>>& out) {
    const size_t n = in.size();
    const float w = -2.0f * 3.14159265358979f / static_cast<float>(n);
    for (size_t k = 0; k < n; ++k) {
        std::complex<float> acc(0.0f, 0.0f);
        for (size_t t = 0; t < n; ++t) {
            const float angle = w * static_cast<float>((k * t) % n);
            acc += in[t] * std::complex<float>(std::cos(angle), std::sin(angle));
        }
        out[k] = acc;
    }
}
