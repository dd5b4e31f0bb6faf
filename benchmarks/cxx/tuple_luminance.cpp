#include <vector>
#include <tuple>
#include <cstddef>

// Relative luminance of linear RGB colors stored as tuples.
void luminance(const std::vector<std::tuple<float, float, float>>& rgb, std::vector<float>& lum) {
    for (size_t i = 0; i < rgb.size(); ++i) {
        const float r = std::get<0>(rgb[i]);
        const float g = std::get<1>(rgb[i]);
        const float b = std::get<2>(rgb[i]);
        lum[i] = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    }
}
