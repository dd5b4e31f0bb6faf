#include <vector>
#include <cstddef>
void lerp(const std::vector<float>& a, const std::vector<float>& b, float t, std::vector<float>& out) {
    out.resize(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + t * (b[i] - a[i]);
}
