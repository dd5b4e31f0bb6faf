#include <vector>
#include <cstddef>

// Leaky ReLU that allocates and returns its result.
std::vector<float> leaky_relu(const std::vector<float>& x, float slope) {
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const float v = x[i];
        out[i] = v > 0.0f ? v : slope * v;
    }
    return out;
}
