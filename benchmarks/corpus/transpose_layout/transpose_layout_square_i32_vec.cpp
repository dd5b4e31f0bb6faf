// Matrix transpose: out = in^T for an n x n matrix, row-major, looping over the rows of the input
// (contiguous reads, strided writes); int.
#include <vector>

// regrapht: n = 3072; in[n*n] in; out[n*n] out
void transpose(int n, const std::vector<int>& in, std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            out[j * n + i] = in[i * n + j];
        }
    }
}
