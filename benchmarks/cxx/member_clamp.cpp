#include <vector>
#include <cstddef>

// Clamps a vector to [lo, hi] in place; the bounds are public members.
struct Clamper {
    double lo = 0.0;
    double hi = 1.0;

    void run(std::vector<double>& v) const {
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i] < lo) {
                v[i] = lo;
            } else if (v[i] > hi) {
                v[i] = hi;
            }
        }
    }
};
