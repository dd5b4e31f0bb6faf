#include <vector>
#include <algorithm>
// max element value
float max_value(const std::vector<float>& v) {
    float m = v[0];
    for (size_t i = 1; i < v.size(); ++i) m = std::max(m, v[i]);
    return m;
}
