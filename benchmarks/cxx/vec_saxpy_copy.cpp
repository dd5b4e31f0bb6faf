#include <vector>
#include <cstddef>

// Takes x by value, updates the copy in place and hands it back: a*x + y.
std::vector<float> saxpyCopy(float a, std::vector<float> x, const std::vector<float>& y) {
    for (size_t i = 0; i < x.size(); i++) {
        x[i] = a * x[i] + y[i];
    }
    return x;
}
