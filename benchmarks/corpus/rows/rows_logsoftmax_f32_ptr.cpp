// Row-wise log-softmax over a rows x cols matrix, float.
#include <cmath>

// regrapht: rows = 8192; cols = 1024; x[rows*cols] in ~ normal(0, 3); y[rows*cols] out
void logsoftmax_rows(int rows, int cols, const float* x, float* y) {
    for (int r = 0; r < rows; ++r) {
        float mx = -INFINITY;
        for (int k = 0; k < cols; ++k) {
            mx = fmaxf(mx, x[r * cols + k]);
        }
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            sum += expf(x[r * cols + c] - mx);
        }
        float lse = mx + logf(sum);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] - lse;
        }
    }
}
