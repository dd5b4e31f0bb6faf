// Matrix transpose: out = in^T for an n x n matrix, row-major, looping over the rows of the input
// (contiguous reads, strided writes); double.

// regrapht: n = 2048; in[n*n] in ~ uniform(-1, 1); out[n*n] out
void transpose(int n, const double* in, double* out) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            out[j * n + i] = in[i * n + j];
        }
    }
}
