// Matrix transpose out (n x m) = in (m x n)^T, cache-blocked in TILE x TILE tiles, row-major;
// float.
#include <algorithm>

#define TILE 32

// regrapht: m = 2048; n = 4096; in[m*n] in ~ uniform(-1, 1); out[n*m] out
void transpose_tiled(int m, int n, const float* in, float* out) {
    for (int ii = 0; ii < m; ii += TILE) {
        for (int jj = 0; jj < n; jj += TILE) {
            const int i_end = std::min(ii + TILE, m);
            const int j_end = std::min(jj + TILE, n);
            for (int i = ii; i < i_end; ++i) {
                for (int j = jj; j < j_end; ++j) {
                    out[j * m + i] = in[i * n + j];
                }
            }
        }
    }
}
