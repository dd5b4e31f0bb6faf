// needs c++20
#include <span>
#include <cstddef>

// Mean of squares over a read-only view.
float mean_square(std::span<const float> x) {
    float acc = 0.0f;
    for (std::size_t i = 0; i < x.size(); ++i) {
        acc += x[i] * x[i];
    }
    return x.empty() ? 0.0f : acc / static_cast<float>(x.size());
}
