#include <vector>
#include <cmath>
float rms(const std::vector<float>& x) {
    float acc = 0.0f;
    for (const auto& v : x) acc += v * v;
    return std::sqrt(acc / x.size());
}
