#include <vector>
#include <cmath>
#include <cstddef>

// Logistic sigmoid; the output is resized here, so callers can pass an empty vector.
void sigmoid(const std::vector<float>& x, std::vector<float>& y) {
    y.resize(x.size());
    for (size_t i = 0; i < y.size(); ++i) {
        y[i] = 1.0f / (1.0f + std::exp(-x[i]));
    }
}
