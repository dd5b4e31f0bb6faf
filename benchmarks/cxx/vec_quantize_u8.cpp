#include <vector>
#include <cstdint>
#include <cmath>
#include <cstddef>

// Linear quantization to 8 bits with saturation, returned as a new vector.
std::vector<uint8_t> quantize(const std::vector<float>& x, float scale) {
    std::vector<uint8_t> q(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        float v = std::round(x[i] * scale + 128.0f);
        if (v < 0.0f) v = 0.0f;
        if (v > 255.0f) v = 255.0f;
        q[i] = static_cast<uint8_t>(v);
    }
    return q;
}
