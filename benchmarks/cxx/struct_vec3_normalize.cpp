#include <cmath>
#include <cstddef>

struct Vec3 {
    double x, y, z;
};

// Normalizes vectors in place; zero vectors are left alone.
void normalize_all(Vec3* v, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const double len = std::sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
        if (len > 0.0) {
            const double inv = 1.0 / len;
            v[i].x *= inv;
            v[i].y *= inv;
            v[i].z *= inv;
        }
    }
}
