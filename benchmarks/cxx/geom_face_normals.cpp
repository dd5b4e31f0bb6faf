#include <vector>
#include <cmath>
#include <cstddef>

// Unit face normals of a triangle soup: verts holds 9 floats per triangle
// (three xyz corners), normals receives 3 floats per triangle.
void faceNormals(const std::vector<float>& verts, std::vector<float>& normals) {
    const size_t ntri = verts.size() / 9;
    for (size_t t = 0; t < ntri; ++t) {
        const size_t v = 9 * t;
        const float ux = verts[v + 3] - verts[v + 0];
        const float uy = verts[v + 4] - verts[v + 1];
        const float uz = verts[v + 5] - verts[v + 2];
        const float wx = verts[v + 6] - verts[v + 0];
        const float wy = verts[v + 7] - verts[v + 1];
        const float wz = verts[v + 8] - verts[v + 2];
        float nx = uy * wz - uz * wy;
        float ny = uz * wx - ux * wz;
        float nz = ux * wy - uy * wx;
        const float len = std::sqrt(nx * nx + ny * ny + nz * nz) + 1e-20f;
        const size_t o = 3 * t;
        normals[o + 0] = nx / len;
        normals[o + 1] = ny / len;
        normals[o + 2] = nz / len;
    }
}
