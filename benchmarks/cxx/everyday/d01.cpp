#include <vector>
// keep the positive samples
std::vector<float> positives(const std::vector<float>& x) {
    std::vector<float> out;
    for (float v : x)
        if (v > 0.0f) out.push_back(v);
    return out;
}
