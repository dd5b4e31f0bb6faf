#include <vector>
#include <cstddef>

// Linear interpolation between two vectors, generic over the element type.
template <typename T>
void lerp(const std::vector<T>& a, const std::vector<T>& b, T t, std::vector<T>& out) {
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = a[i] + t * (b[i] - a[i]);
    }
}

void lerpDouble(const std::vector<double>& a, const std::vector<double>& b, double t,
                std::vector<double>& out) {
    lerp(a, b, t, out);
}
