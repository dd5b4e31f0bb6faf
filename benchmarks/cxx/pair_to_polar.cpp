#include <vector>
#include <utility>
#include <cmath>
#include <cstddef>

// Cartesian (x, y) pairs to polar radius and angle.
void to_polar(const std::vector<std::pair<float, float>>& xy,
              std::vector<float>& radius, std::vector<float>& angle) {
    for (size_t i = 0; i < xy.size(); ++i) {
        const float x = xy[i].first;
        const float y = xy[i].second;
        radius[i] = std::sqrt(x * x + y * y);
        angle[i] = std::atan2(y, x);
    }
}
