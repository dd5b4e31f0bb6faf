// Row-wise softmax with a one-pass running max and sum over a rows x cols matrix, float.
#include <cmath>
#include <vector>

// regrapht: rows = 8192; cols = 1024; x[rows*cols] in ~ normal(0, 3); y[rows*cols] out
void softmax_online_rows(int rows, int cols, const std::vector<float>& x, std::vector<float>& y) {
    for (int r = 0; r < rows; ++r) {
        float mx = -INFINITY;
        float sum = 0.0f;
        for (int k = 0; k < cols; ++k) {
            float v = x[r * cols + k];
            if (v > mx) {
                sum = sum * expf(mx - v) + 1.0f;
                mx = v;
            } else {
                sum += expf(v - mx);
            }
        }
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = expf(x[r * cols + j] - mx) / sum;
        }
    }
}
