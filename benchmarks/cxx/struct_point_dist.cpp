#include <vector>
#include <cmath>
#include <cstddef>

struct Point {
    float x, y;
};

// Euclidean distance of every point to a center passed by value.
void distances(const std::vector<Point>& pts, Point center, std::vector<float>& dist) {
    for (size_t i = 0; i < pts.size(); ++i) {
        const float dx = pts[i].x - center.x;
        const float dy = pts[i].y - center.y;
        dist[i] = std::sqrt(dx * dx + dy * dy);
    }
}
