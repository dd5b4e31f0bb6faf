// Indexed map: a row permutation of a rows x cols matrix, out row i = row perm[i] of x, double,
// pointer arguments.

// regrapht: rows = 4096; cols = 4096; perm[rows] in ~ permutation
// regrapht: x[rows*cols] in ~ uniform(-100, 100); out[rows*cols] out
void permute_rows(int rows, int cols, const int* perm, const double* x, double* out) {
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            out[i * cols + j] = x[perm[i] * cols + j];
        }
    }
}
