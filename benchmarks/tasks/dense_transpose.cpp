// Transpose: out (n x m) = in (m x n)^T, row-major, looping over the rows of the output
// (contiguous writes, strided reads).
// regrapht: m = 4096; n = 4096; in[m*n] in; out[n*m] out
void transpose(int m, int n, const float* in, float* out) {
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < m; ++i) {
            out[j * m + i] = in[i * n + j];
        }
    }
}
