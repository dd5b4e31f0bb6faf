// Matrix transpose: out (n x m) = in (m x n)^T, row-major, looping over the rows of the input
// (contiguous reads, strided writes); double.
#include <vector>

// regrapht: m = 2048; n = 3072; in[m*n] in ~ uniform(-1, 1); out[n*m] out
void transpose(int m, int n, const std::vector<double>& in, std::vector<double>& out) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            out[j * m + i] = in[i * n + j];
        }
    }
}
