// Row-wise RMS normalisation with a learned scale over a rows x cols matrix, double.
#include <cmath>

// regrapht: rows = 16384; cols = 1024; eps = 0.00001; x[rows*cols] in ~ normal(0, 2)
// regrapht: gamma[cols] in ~ uniform(0.5, 1.5); y[rows*cols] out
void rmsnorm_rows(int rows, int cols, double eps, const double* x, const double* gamma, double* y) {
    for (int r = 0; r < rows; ++r) {
        double ss = 0.0;
        for (int k = 0; k < cols; ++k) {
            ss += x[r * cols + k] * x[r * cols + k];
        }
        double inv = 1.0 / sqrt(ss / (double)cols + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] * inv * gamma[j];
        }
    }
}
