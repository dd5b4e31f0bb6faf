// 3-D stencil: 7-point smoothing (centre 0.4, faces 0.1) over the interior of an nx x ny x nz grid
// (x fastest); the boundary of out keeps its values; double.
#include <vector>

// regrapht: nx = 256; ny = 256; nz = 128; in[nx*ny*nz] in ~ uniform(-1, 1); out[nx*ny*nz] inout
void sevenpt_3d(int nx, int ny, int nz, const std::vector<double>& in, std::vector<double>& out) {
    const int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        for (int y = 1; y < ny - 1; ++y) {
            for (int x = 1; x < nx - 1; ++x) {
                const int idx = z * plane + y * nx + x;
                out[idx] = 0.4 * in[idx]
                    + 0.1 * (in[idx - 1] + in[idx + 1]
                    + in[idx - nx] + in[idx + nx]
                    + in[idx - plane] + in[idx + plane]);
            }
        }
    }
}
