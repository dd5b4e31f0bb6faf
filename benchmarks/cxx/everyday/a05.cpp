#include <vector>
#include <cmath>
// softmax over a vector
std::vector<float> softmax(const std::vector<float>& x) {
    float mx = x[0];
    for (float v : x) mx = std::max(mx, v);
    std::vector<float> out(x.size());
    float sum = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) { out[i] = std::exp(x[i] - mx); sum += out[i]; }
    for (auto& o : out) o /= sum;
    return out;
}
