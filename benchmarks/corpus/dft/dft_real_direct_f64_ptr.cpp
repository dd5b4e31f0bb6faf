// Naive DFT of a real signal, the angle 2 pi k j / n computed directly, double.
#include <cmath>

// regrapht: n = 2048; x[n] in; re[n] out; im[n] out
void dft_real(int n, const double* x, double* re, double* im) {
    const double pi = 3.141592653589793;
    for (int k = 0; k < n; ++k) {
        double sr = 0.0;
        double si = 0.0;
        for (int j = 0; j < n; ++j) {
            double angle = 2.0 * pi * k * j / n;
            sr += x[j] * cos(angle);
            si -= x[j] * sin(angle);
        }
        re[k] = sr;
        im[k] = si;
    }
}
