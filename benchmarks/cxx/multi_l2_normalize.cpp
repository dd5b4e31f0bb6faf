#include <vector>
#include <cmath>
#include <cstddef>

// Scales x to unit Euclidean norm in place and returns the original norm.
float l2_normalize(std::vector<float>& x) {
    float ss = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) {
        ss += x[i] * x[i];
    }
    const float norm = std::sqrt(ss);
    if (norm > 0.0f) {
        const float inv = 1.0f / norm;
        for (float& v : x) {
            v *= inv;
        }
    }
    return norm;
}
