#include <vector>
#include <numeric>
float mean(const std::vector<float>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0f) / v.size();
}
