#include <vector>
#include <algorithm>
float smallest_positive(const std::vector<float>& v) {
    float best = 1e30f;
    for (float x : v)
        if (x > 0.0f) best = std::min(best, x);
    return best;
}
