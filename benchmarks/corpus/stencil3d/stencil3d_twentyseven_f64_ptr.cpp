// 3-D stencil: 27-point stencil with weights by distance class (centre, face, edge, corner) over
// the interior of an nx x ny x nz grid (x fastest); the boundary of out keeps its values; double.

// Weights by how many of the three offsets are nonzero: centre, face, edge, corner.
constexpr double kWeight[4] = {0.25, 0.0625, 0.03125, 0.015625};

// regrapht: nx = 192; ny = 160; nz = 128; in[nx*ny*nz] in ~ uniform(-1, 1); out[nx*ny*nz] inout
void twentyseven_3d(int nx, int ny, int nz, const double* in, double* out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                double acc = 0.0;
                for (int dz = -1; dz <= 1; ++dz) {
                    for (int dy = -1; dy <= 1; ++dy) {
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int d = (dz != 0) + (dy != 0) + (dx != 0);
                            acc += kWeight[d] * in[idx + dz * plane + dy * nx + dx];
                        }
                    }
                }
                out[idx] = acc;
            }
        }
    }
}
