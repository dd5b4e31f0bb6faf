// 2-D stencil: isotropic 9-point Laplacian scaled by 1/h^2 over the interior of a rows x cols
// row-major grid; the border of out keeps its values; double.

// regrapht: rows = 2048; cols = 2048; inv_h2 = 0.25; in[rows*cols] in ~ uniform(-1, 1)
// regrapht: out[rows*cols] inout
void laplace9_2d(int rows, int cols, double inv_h2, const double* in, double* out) {
    for (int i = 1; i < rows - 1; ++i) {
        for (int j = 1; j < cols - 1; ++j) {
            const int idx = i * cols + j;
            const double edges = in[idx - cols] + in[idx + cols]
                + in[idx - 1] + in[idx + 1];
            const double corners = in[idx - cols - 1] + in[idx - cols + 1]
                + in[idx + cols - 1] + in[idx + cols + 1];
            out[idx] = inv_h2 / 6.0 * (4.0 * edges + corners - 20.0 * in[idx]);
        }
    }
}
