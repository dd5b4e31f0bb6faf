// Histogram: 2-D counts of (double x, y) points in the unit square on an nx by ny grid, unsigned
// int counts; vector arguments.
#include <vector>

// regrapht: n = 1<<24; nx = 256; ny = 128; x[n] in ~ uniform(0, 1); y[n] in ~ uniform(0, 1)
// regrapht: hist[nx*ny] out
void histogram_2d_f64(int nx, int ny, const std::vector<double>& x, const std::vector<double>& y,
                      std::vector<unsigned int>& hist) {
    const int n = static_cast<int>(x.size());
    for (int c = 0; c < nx * ny; ++c) hist[c] = 0;
    for (int i = 0; i < n; ++i) {
        int bx = (int)(x[i] * (double)nx);
        int by = (int)(y[i] * (double)ny);
        if (bx < 0) bx = 0;
        if (bx > nx - 1) bx = nx - 1;
        if (by < 0) by = 0;
        if (by > ny - 1) by = ny - 1;
        hist[by * nx + bx]++;
    }
}
