#include <vector>

struct Point {
    float x, y;
};

// Translates every point; a range-for over references, as usually written.
void shift_points(std::vector<Point>& pts, float dx, float dy) {
    for (auto& p : pts) {
        p.x += dx;
        p.y += dy;
    }
}
