#include <numeric>
#include <vector>

// Mean of a vector, the way it is usually written: std::accumulate, no loop.
float mean(const std::vector<float>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0f) / v.size();
}
