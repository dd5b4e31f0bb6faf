#include <cstddef>

// Writes a bool flag per sample: true where the value exceeds the threshold.
void threshold(const float* x, bool* above, size_t n, float t) {
    for (size_t i = 0; i < n; ++i) {
        above[i] = x[i] > t;
    }
}
