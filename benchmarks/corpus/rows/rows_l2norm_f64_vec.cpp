// Row-wise L2 normalisation, x / max(||x||, eps) over a rows x cols matrix, double.
#include <cmath>
#include <vector>

// regrapht: rows = 16384; cols = 1024; eps = 1e-6; x[rows*cols] in ~ normal(0, 3); y[rows*cols] out
void l2norm_rows(int rows, int cols, double eps, const std::vector<double>& x,
                 std::vector<double>& y) {
    for (int r = 0; r < rows; ++r) {
        double ss = 0.0;
        for (int k = 0; k < cols; ++k) {
            ss += x[r * cols + k] * x[r * cols + k];
        }
        double inv = 1.0 / fmax(sqrt(ss), eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] * inv;
        }
    }
}
