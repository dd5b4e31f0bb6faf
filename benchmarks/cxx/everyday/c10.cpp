#include <vector>
#include <cstddef>
// threshold into mask
std::vector<bool> above(const std::vector<float>& v, float t) {
    std::vector<bool> m(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] > t;
    return m;
}
