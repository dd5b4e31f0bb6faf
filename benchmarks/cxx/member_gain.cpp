// A gain stage with a fixed gain in decibels converted once in the constructor.
#include <cmath>

class GainStage {
public:
    explicit GainStage(float db) : gain_(std::pow(10.0f, db / 20.0f)) {}

    void apply(const float* in, float* out, int n) const {
        for (int i = 0; i < n; ++i) {
            out[i] = in[i] * gain_;
        }
    }

private:
    float gain_;
};
