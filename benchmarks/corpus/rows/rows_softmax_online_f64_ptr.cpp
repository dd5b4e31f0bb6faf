// Row-wise softmax with a one-pass running max and sum over a rows x cols matrix, double.
#include <cmath>

// regrapht: rows = 8192; cols = 1024; x[rows*cols] in ~ normal(0, 3); y[rows*cols] out
void softmax_online_rows(int rows, int cols, const double* x, double* y) {
    for (int r = 0; r < rows; ++r) {
        double mx = -INFINITY;
        double sum = 0.0;
        for (int k = 0; k < cols; ++k) {
            double v = x[r * cols + k];
            if (v > mx) {
                sum = sum * exp(mx - v) + 1.0;
                mx = v;
            } else {
                sum += exp(v - mx);
            }
        }
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = exp(x[r * cols + j] - mx) / sum;
        }
    }
}
