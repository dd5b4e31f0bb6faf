#include <vector>
#include <cstddef>

// y = a * x, element by element. The caller sizes y to match x.
void scale(const std::vector<float>& x, std::vector<float>& y, float a) {
    for (std::size_t i = 0; i < x.size(); ++i) {
        y[i] = a * x[i];
    }
}
