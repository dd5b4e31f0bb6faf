#include <vector>
#include <cmath>
#include <cstddef>
#include <algorithm>

// Softmax of a whole vector: the maximum first, then the output is allocated and filled.
std::vector<float> softmax(const std::vector<float>& x) {
    float mx = x[0];
    for (float v : x) mx = std::max(mx, v);
    std::vector<float> out(x.size());
    float sum = 0.0f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        out[i] = std::exp(x[i] - mx);
        sum += out[i];
    }
    for (auto& o : out) o /= sum;
    return out;
}
