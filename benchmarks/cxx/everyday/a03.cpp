#include <vector>
struct Point { float x, y; };
// translate all points
void translate(std::vector<Point>& pts, float dx, float dy) {
    for (auto& p : pts) { p.x += dx; p.y += dy; }
}
