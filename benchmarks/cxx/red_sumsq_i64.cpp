#include <vector>
#include <cstdint>
#include <cstddef>

// Sum of squares of 32-bit samples, accumulated in 64 bits so it cannot overflow.
int64_t sum_of_squares(const std::vector<int32_t>& v) {
    int64_t total = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const int64_t s = v[i];
        total += s * s;
    }
    return total;
}
