// Row-wise layer normalisation with learned scale and shift over a rows x cols matrix, double.
#include <cmath>
#include <vector>

// regrapht: rows = 16384; cols = 1024; eps = 0.00001; x[rows*cols] in ~ normal(1, 2)
// regrapht: gamma[cols] in ~ uniform(0.5, 1.5); beta[cols] in ~ uniform(-0.5, 0.5)
// regrapht: y[rows*cols] out
void layernorm_rows(int rows, int cols, double eps, const std::vector<double>& x,
                    const std::vector<double>& gamma, const std::vector<double>& beta,
                    std::vector<double>& y) {
    for (int r = 0; r < rows; ++r) {
        double mean = 0.0;
        for (int k = 0; k < cols; ++k) {
            mean += x[r * cols + k];
        }
        mean /= (double)cols;
        double var = 0.0;
        for (int c = 0; c < cols; ++c) {
            double d = x[r * cols + c] - mean;
            var += d * d;
        }
        var /= (double)cols;
        double inv = 1.0 / sqrt(var + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = (x[r * cols + j] - mean) * inv * gamma[j] + beta[j];
        }
    }
}
