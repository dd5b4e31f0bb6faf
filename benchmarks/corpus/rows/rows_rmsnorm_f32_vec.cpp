// Row-wise RMS normalisation with a learned scale over a rows x cols matrix, float.
#include <cmath>
#include <vector>

// regrapht: rows = 16384; cols = 1024; eps = 0.00001; x[rows*cols] in ~ normal(0, 2)
// regrapht: gamma[cols] in ~ uniform(0.5, 1.5); y[rows*cols] out
void rmsnorm_rows(int rows, int cols, float eps, const std::vector<float>& x,
                  const std::vector<float>& gamma, std::vector<float>& y) {
    for (int r = 0; r < rows; ++r) {
        float ss = 0.0f;
        for (int k = 0; k < cols; ++k) {
            ss += x[r * cols + k] * x[r * cols + k];
        }
        float inv = 1.0f / sqrtf(ss / (float)cols + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] * inv * gamma[j];
        }
    }
}
