// Row-wise layer normalisation with learned scale and shift: mean, variance (two passes),
// then (x - mean) / sqrt(var + eps) * gamma + beta.
#include <cmath>

// regrapht: rows = 8192; cols = 1024; eps = 0.00001
// regrapht: x[rows*cols] in ~ normal(1, 2); gamma[cols] in; beta[cols] in; y[rows*cols] out
void layernorm_rows(int rows, int cols, float eps, const float* x, const float* gamma,
                    const float* beta, float* y) {
    for (int r = 0; r < rows; ++r) {
        float mean = 0.0f;
        for (int c = 0; c < cols; ++c) {
            mean += x[r * cols + c];
        }
        mean /= (float)cols;
        float var = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float d = x[r * cols + c] - mean;
            var += d * d;
        }
        var /= (float)cols;
        float inv = 1.0f / sqrtf(var + eps);
        for (int c = 0; c < cols; ++c) {
            y[r * cols + c] = (x[r * cols + c] - mean) * inv * gamma[c] + beta[c];
        }
    }
}
