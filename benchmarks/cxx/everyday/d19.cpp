#include <vector>
#include <complex>
void cmul(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b,
          std::vector<std::complex<float>>& c) {
    for (size_t i = 0; i < a.size(); ++i) c[i] = a[i] * b[i];
}
