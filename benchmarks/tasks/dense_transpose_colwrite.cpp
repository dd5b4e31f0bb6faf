// Transpose looping over the rows of the input (contiguous reads, strided writes
// out[j*m + i]): iteration i owns column i of out.
// regrapht: m = 4096; n = 4096; in[m*n] in; out[n*m] out
void transpose_colwrite(int m, int n, const float* in, float* out) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            out[j * m + i] = in[i * n + j];
        }
    }
}
