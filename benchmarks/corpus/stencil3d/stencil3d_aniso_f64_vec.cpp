// 3-D stencil: anisotropic 7-point Laplacian with per-axis coefficients cx, cy, cz over the
// interior of an nx x ny x nz grid (x fastest); the boundary of out keeps its values; double.
#include <vector>

// regrapht: nx = 256; ny = 256; nz = 128; cx = 1.0; cy = 0.5; cz = 0.25
// regrapht: in[nx*ny*nz] in ~ uniform(-1, 1); out[nx*ny*nz] inout
void aniso_3d(int nx, int ny, int nz, double cx, double cy, double cz,
              const std::vector<double>& in, std::vector<double>& out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                const double two_c = 2.0 * in[idx];
                out[idx] = cx * (in[idx - 1] + in[idx + 1] - two_c)
                    + cy * (in[idx - nx] + in[idx + nx] - two_c)
                    + cz * (in[idx - plane] + in[idx + plane] - two_c);
            }
        }
    }
}
