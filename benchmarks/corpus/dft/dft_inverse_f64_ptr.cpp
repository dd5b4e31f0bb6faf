// Naive inverse DFT of a complex spectrum (separate re/im arrays), scaled by 1/n, double.
#include <cmath>

// regrapht: n = 2048; re[n] in; im[n] in; xr[n] out; xi[n] out
void idft(int n, const double* re, const double* im, double* xr, double* xi) {
    for (int j = 0; j < n; ++j) {
        double sr = 0.0;
        double si = 0.0;
        for (int k = 0; k < n; ++k) {
            int r = (int)((long long)j * k % n);
            double angle = 6.283185307179586 * (double)r / (double)n;
            double c = std::cos(angle);
            double s = std::sin(angle);
            sr += re[k] * c - im[k] * s;
            si += re[k] * s + im[k] * c;
        }
        xr[j] = sr / (double)n;
        xi[j] = si / (double)n;
    }
}
