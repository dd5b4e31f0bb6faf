#include <vector>
#include <cmath>
std::vector<float> magnitudes(const std::vector<float>& re, const std::vector<float>& im) {
    std::vector<float> out;
    out.reserve(re.size());
    for (size_t i = 0; i < re.size(); ++i) out.push_back(std::sqrt(re[i] * re[i] + im[i] * im[i]));
    return out;
}
