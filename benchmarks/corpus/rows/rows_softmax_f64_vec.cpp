// Row-wise softmax (max-subtracted) over a rows x cols matrix, double.
#include <cmath>
#include <vector>

// regrapht: rows = 8192; cols = 1024; x[rows*cols] in ~ normal(0, 3); y[rows*cols] out
void softmax_rows(int rows, int cols, const std::vector<double>& x, std::vector<double>& y) {
    for (int r = 0; r < rows; ++r) {
        double mx = -INFINITY;
        for (int k = 0; k < cols; ++k) {
            mx = fmax(mx, x[r * cols + k]);
        }
        double sum = 0.0;
        for (int c = 0; c < cols; ++c) {
            double v = exp(x[r * cols + c] - mx);
            y[r * cols + c] = v;
            sum += v;
        }
        double inv = 1.0 / sum;
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] *= inv;
        }
    }
}
