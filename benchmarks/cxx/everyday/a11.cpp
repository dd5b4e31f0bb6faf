#include <span>
#include <cmath>
// normalize a span in place
void normalize(std::span<float> v) {
    float s = 0.0f;
    for (float e : v) s += e * e;
    const float inv = 1.0f / std::sqrt(s);
    for (float& e : v) e *= inv;
}
