#include <vector>
#include <algorithm>
void square_all(std::vector<float>& v) {
    std::for_each(v.begin(), v.end(), [](float& x) { x = x * x; });
}
