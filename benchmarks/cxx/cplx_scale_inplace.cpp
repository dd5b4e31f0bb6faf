#include <vector>
#include <complex>
#include <cstddef>

// Applies a complex gain (amplitude and phase) to a spectrum in place.
void applyGain(std::vector<std::complex<double>>& spectrum, double amplitude, double phase) {
    const std::complex<double> g = std::polar(amplitude, phase);
    for (std::size_t k = 0; k < spectrum.size(); ++k) {
        spectrum[k] *= g;
    }
}
