#include <complex>

// Magnitude in decibels of each complex sample.
void magnitude_db(const std::complex<float>* z, float* db, int n) {
    for (int i = 0; i < n; i++) {
        const float mag = std::abs(z[i]);
        db[i] = 20.0f * std::log10(mag + 1e-12f);
    }
}
