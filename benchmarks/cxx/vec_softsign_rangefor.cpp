#include <vector>
#include <cmath>

// Softsign of every element, collected into a new vector with a range-for loop.
std::vector<float> softsign(const std::vector<float>& x) {
    std::vector<float> out;
    out.reserve(x.size());
    for (float v : x) {
        out.push_back(v / (1.0f + std::fabs(v)));
    }
    return out;
}
