#include <vector>
#include <cstddef>

// 4-tap FIR filter with scalar coefficient members; samples before the start read as zero.
class FirFilter {
public:
    FirFilter(float c0, float c1, float c2, float c3) : c0_(c0), c1_(c1), c2_(c2), c3_(c3) {}

    void process(const std::vector<float>& in, std::vector<float>& out) const {
        for (size_t i = 0; i < in.size(); ++i) {
            float acc = c0_ * in[i];
            if (i >= 1) acc += c1_ * in[i - 1];
            if (i >= 2) acc += c2_ * in[i - 2];
            if (i >= 3) acc += c3_ * in[i - 3];
            out[i] = acc;
        }
    }

private:
    float c0_, c1_, c2_, c3_;
};
