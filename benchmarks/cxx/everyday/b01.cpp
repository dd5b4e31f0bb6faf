#include <vector>
#include <cstddef>
void scale(std::vector<float>& v, float s) {
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i) v[i] *= s;
}
