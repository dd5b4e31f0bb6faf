#include <vector>
#include <cmath>
#include <cstddef>

// Largest magnitude in the vector (infinity norm).
float maxAbs(const std::vector<float>& x) {
    float m = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) {
        const float a = std::fabs(x[i]);
        if (a > m) m = a;
    }
    return m;
}
