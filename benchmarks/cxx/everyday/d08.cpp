#include <vector>
#include <algorithm>
void relu_inplace(std::vector<float>& x) {
    for (auto& v : x) v = std::max(v, 0.0f);
}
