// Naive DCT-II, X_k = sum_j x_j cos(pi (2j+1) k / 2n), double.
#include <cmath>
#include <vector>

// regrapht: n = 4096; x[n] in; X[n] out
void dct2(int n, const std::vector<double>& x, std::vector<double>& X) {
    for (int k = 0; k < n; ++k) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)(2 * j + 1) * k % (4 * n));
            acc += x[j] * std::cos(3.141592653589793 * (double)r / (double)(2 * n));
        }
        X[k] = acc;
    }
}
