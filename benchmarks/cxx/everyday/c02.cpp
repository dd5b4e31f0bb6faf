#include <vector>
#include <cstddef>
// moving average window 5
std::vector<float> moving_average(const std::vector<float>& x) {
    std::vector<float> y(x.size(), 0.0f);
    for (std::size_t i = 2; i + 2 < x.size(); ++i) {
        float s = 0.0f;
        for (int k = -2; k <= 2; ++k) s += x[i + k];
        y[i] = s / 5.0f;
    }
    return y;
}
