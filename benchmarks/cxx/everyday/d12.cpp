#include <vector>
#include <cstdint>
#include <cstdlib>
std::vector<uint32_t> abs_diff(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    std::vector<uint32_t> d(a.size());
    for (size_t i = 0; i < a.size(); ++i) d[i] = std::abs(a[i] - b[i]);
    return d;
}
