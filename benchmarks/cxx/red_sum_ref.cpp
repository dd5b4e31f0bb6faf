#include <vector>
#include <cstddef>

// Sum of all elements, returned through a reference.
void sumInto(const std::vector<float>& x, float& result) {
    float acc = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) {
        acc += x[i];
    }
    result = acc;
}
