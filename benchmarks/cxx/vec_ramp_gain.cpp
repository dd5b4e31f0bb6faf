#include <vector>

// A gain ramp of n samples applied to a signal; the output is sized by a parameter name.
std::vector<float> ramp_gain(const std::vector<float>& signal, int n, float step) {
    std::vector<float> out(n);
    for (int i = 0; i < n; ++i) {
        out[i] = signal[i] * (1.0f + step * static_cast<float>(i));
    }
    return out;
}
