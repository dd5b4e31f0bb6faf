#include <vector>
#include <cstddef>
#include <cmath>
struct Vec3 { double x, y, z; };
// lengths of vectors
std::vector<double> norms(const std::vector<Vec3>& v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = std::sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
    return out;
}
