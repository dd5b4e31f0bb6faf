// 3-D stencil: 27-point box average over the interior of an nx x ny x nz grid (x fastest); the
// boundary of out keeps its values; double.
#include <vector>

// regrapht: nx = 160; ny = 128; nz = 192; in[nx*ny*nz] in ~ uniform(-1, 1); out[nx*ny*nz] inout
void box27_3d(int nx, int ny, int nz, const std::vector<double>& in, std::vector<double>& out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                double acc = 0.0;
                for (int dz = -1; dz <= 1; ++dz) {
                    for (int dy = -1; dy <= 1; ++dy) {
                        for (int dx = -1; dx <= 1; ++dx) {
                            acc += in[idx + dz * plane + dy * nx + dx];
                        }
                    }
                }
                out[idx] = acc * (1.0 / 27.0);
            }
        }
    }
}
