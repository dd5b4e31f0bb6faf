#include <vector>
#include <complex>
#include <cstddef>

// Conjugated dot product sum(conj(a[i]) * b[i]), as BLAS zdotc.
std::complex<double> dotc(const std::vector<std::complex<double>>& a,
                          const std::vector<std::complex<double>>& b) {
    std::complex<double> acc(0.0, 0.0);
    for (size_t i = 0; i < a.size(); ++i) {
        acc += std::conj(a[i]) * b[i];
    }
    return acc;
}
