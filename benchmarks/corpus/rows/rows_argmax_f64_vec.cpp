// Row-wise argmax (first index on ties) over a rows x cols matrix, double.
#include <vector>

// regrapht: rows = 16384; cols = 1024; x[rows*cols] in ~ normal(0, 3); idx[rows] out
void argmax_rows(int rows, int cols, const std::vector<double>& x, std::vector<int>& idx) {
    for (int r = 0; r < rows; ++r) {
        double best = x[r * cols];
        int at = 0;
        for (int k = 1; k < cols; ++k) {
            if (x[r * cols + k] > best) {
                best = x[r * cols + k];
                at = k;
            }
        }
        idx[r] = at;
    }
}
