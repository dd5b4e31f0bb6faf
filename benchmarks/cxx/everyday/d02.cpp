#include <vector>
#include <algorithm>
void multiply(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& out) {
    std::transform(a.begin(), a.end(), b.begin(), out.begin(),
                   [](float x, float y) { return x * y; });
}
