#include <vector>
#include <cstddef>

// Copies x where the mask is set, writes `fill` elsewhere.
void maskedFill(const std::vector<float>& x, const std::vector<bool>& mask,
                std::vector<float>& y, float fill) {
    for (size_t i = 0; i < x.size(); ++i) {
        y[i] = mask[i] ? x[i] : fill;
    }
}
