#include <vector>
#include <cmath>
struct Vec3 { float x, y, z; };
float total_length(const std::vector<Vec3>& v) {
    float total = 0.0f;
    for (const Vec3& p : v) total += std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
    return total;
}
