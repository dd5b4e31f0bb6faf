#include <vector>
#include <cstddef>
// find index of minimum
std::size_t argmin(const std::vector<float>& v) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < v.size(); ++i)
        if (v[i] < v[best]) best = i;
    return best;
}
