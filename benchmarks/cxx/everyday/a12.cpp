#include <vector>
#include <cmath>
// clamp and scale, with std::transform-free loop using iterators? no: index with int
void clamp_scale(std::vector<float>& v, float lo, float hi, float s) {
    for (int i = 0; i < static_cast<int>(v.size()); ++i) {
        float t = v[i] < lo ? lo : (v[i] > hi ? hi : v[i]);
        v[i] = t * s;
    }
}
