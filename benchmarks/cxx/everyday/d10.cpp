#include <cstddef>
void scale_while(float* data, std::size_t n, float k) {
    std::size_t i = 0;
    while (i < n) {
        data[i] *= k;
        ++i;
    }
}
