#include <vector>
#include <cstddef>
#include <algorithm>
void clamp_all(std::vector<int>& v, int lo, int hi) {
    for (auto& e : v) e = std::clamp(e, lo, hi);
}
