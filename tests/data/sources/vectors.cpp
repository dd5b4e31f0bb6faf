// std::vector in and out: the output is resized by the function itself.
#include <vector>
#include <cmath>

void scale_shift(const std::vector<float>& in, std::vector<float>& out, float scale) {
    out.resize(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = std::fabs(in[i]) * scale + 1.0f;
    }
}

// A compaction: the output holds at most as many as the input, as its annotation says.
// regrapht: values[n] in; kept[n] out
void keep_positive(const std::vector<int>& values, std::vector<int>& kept) {
    kept.clear();
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] > 0) {
            kept.push_back(values[i]);
        }
    }
}

// The output is resized to the input's length, then the loop runs to the output's size.
void sigmoid_resized(const std::vector<float>& x, std::vector<float>& y) {
    y.resize(x.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = 1.0f / (1.0f + std::exp(-x[i]));
    }
}
