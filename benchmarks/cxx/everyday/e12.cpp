#include <vector>
void conv1d(const std::vector<float>& signal, const std::vector<float>& kernel, std::vector<float>& out) {
    const size_t k = kernel.size();
    for (size_t i = 0; i + k <= signal.size(); ++i) {
        float acc = 0.0f;
        for (size_t j = 0; j < k; ++j) acc += signal[i + j] * kernel[j];
        out[i] = acc;
    }
}
