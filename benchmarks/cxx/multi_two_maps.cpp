#include <vector>
#include <cmath>
#include <cstddef>

// Two independent element-wise passes in one function: log1p into one output,
// square root into another.
void logAndSqrt(const std::vector<float>& x, std::vector<float>& logs, std::vector<float>& roots) {
    for (size_t i = 0; i < x.size(); ++i) {
        logs[i] = std::log1p(std::fabs(x[i]));
    }
    for (size_t i = 0; i < x.size(); ++i) {
        roots[i] = std::sqrt(std::fabs(x[i]));
    }
}
