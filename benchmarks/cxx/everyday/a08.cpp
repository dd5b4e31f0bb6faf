#include <vector>
#include <cstdint>
// count elements equal to key
std::size_t count_eq(const std::vector<int32_t>& v, int32_t key) {
    std::size_t c = 0;
    for (auto e : v) if (e == key) ++c;
    return c;
}
