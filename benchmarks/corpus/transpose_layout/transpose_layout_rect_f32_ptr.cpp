// Matrix transpose: out (n x m) = in (m x n)^T, row-major, looping over the rows of the input
// (contiguous reads, strided writes); float.

// regrapht: m = 4096; n = 2048; in[m*n] in ~ uniform(-1, 1); out[n*m] out
void transpose(int m, int n, const float* in, float* out) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            out[j * m + i] = in[i * n + j];
        }
    }
}
