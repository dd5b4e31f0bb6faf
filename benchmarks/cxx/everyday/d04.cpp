#include <vector>
#include <algorithm>
float peak(const std::vector<float>& signal) {
    return *std::max_element(signal.begin(), signal.end());
}
