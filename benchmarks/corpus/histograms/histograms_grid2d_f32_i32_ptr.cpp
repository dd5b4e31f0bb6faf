// Histogram: 2-D counts of (float x, y) points in the unit square on an nx by ny grid, int counts;
// pointer arguments.

// regrapht: n = 1<<24; nx = 256; ny = 128; x[n] in ~ uniform(0, 1); y[n] in ~ uniform(0, 1)
// regrapht: hist[nx*ny] out
void histogram_2d_f32(int n, int nx, int ny, const float* x, const float* y, int* hist) {
    for (int c = 0; c < nx * ny; ++c) hist[c] = 0;
    for (int i = 0; i < n; ++i) {
        int bx = (int)(x[i] * (float)nx);
        int by = (int)(y[i] * (float)ny);
        if (bx < 0) bx = 0;
        if (bx > nx - 1) bx = nx - 1;
        if (by < 0) by = 0;
        if (by > ny - 1) by = ny - 1;
        hist[by * nx + bx]++;
    }
}
