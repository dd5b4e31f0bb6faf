// Row-wise maximum over a rows x cols matrix, double.
#include <cmath>

// regrapht: rows = 8192; cols = 1024; x[rows*cols] in ~ normal(0, 3); out[rows] out
void max_rows(int rows, int cols, const double* x, double* out) {
    for (int r = 0; r < rows; ++r) {
        double mx = -INFINITY;
        for (int k = 0; k < cols; ++k) {
            mx = fmax(mx, x[r * cols + k]);
        }
        out[r] = mx;
    }
}
