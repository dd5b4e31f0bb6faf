// Row-wise layer normalisation with learned scale and shift over a rows x cols matrix, float.
#include <cmath>

// regrapht: rows = 16384; cols = 1024; eps = 0.00001; x[rows*cols] in ~ normal(1, 2)
// regrapht: gamma[cols] in ~ uniform(0.5, 1.5); beta[cols] in ~ uniform(-0.5, 0.5)
// regrapht: y[rows*cols] out
void layernorm_rows(int rows, int cols, float eps, const float* x, const float* gamma,
                    const float* beta, float* y) {
    for (int r = 0; r < rows; ++r) {
        float mean = 0.0f;
        for (int k = 0; k < cols; ++k) {
            mean += x[r * cols + k];
        }
        mean /= (float)cols;
        float var = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float d = x[r * cols + c] - mean;
            var += d * d;
        }
        var /= (float)cols;
        float inv = 1.0f / sqrtf(var + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = (x[r * cols + j] - mean) * inv * gamma[j] + beta[j];
        }
    }
}
