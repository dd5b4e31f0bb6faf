#include <vector>
#include <cmath>
void gaussian(const std::vector<float>& x, std::vector<float>& out, float sigma) {
    auto g = [sigma](float v) { return std::exp(-v * v / (2 * sigma * sigma)); };
    for (size_t i = 0; i < x.size(); ++i) out[i] = g(x[i]);
}
