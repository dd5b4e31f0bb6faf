#include <algorithm>
#include <vector>

// y = a*x + y with std::transform over two ranges and a capturing lambda.
void saxpy_transform(float a, const std::vector<float>& x, std::vector<float>& y) {
    std::transform(x.begin(), x.end(), y.begin(), y.begin(),
                   [a](float xi, float yi) { return a * xi + yi; });
}
