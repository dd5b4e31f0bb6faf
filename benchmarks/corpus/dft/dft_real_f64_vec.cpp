// Naive DFT of a real signal into real and imaginary parts, double.
#include <cmath>
#include <vector>

// regrapht: n = 2048; x[n] in; re[n] out; im[n] out
void dft_real(int n, const std::vector<double>& x, std::vector<double>& re,
              std::vector<double>& im) {
    for (int k = 0; k < n; ++k) {
        double sr = 0.0;
        double si = 0.0;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            double angle = 6.283185307179586 * (double)r / (double)n;
            sr += x[j] * std::cos(angle);
            si -= x[j] * std::sin(angle);
        }
        re[k] = sr;
        im[k] = si;
    }
}
