// Selection: the largest float value strictly below a cap (top-1 under a bound); pointer arguments.
#include <limits>

// regrapht: n = 1<<24; cap = 0.5; x[n] in ~ uniform(-1, 1)
float largest_below_f32(int n, float cap, const float* x) {
    float best = std::numeric_limits<float>::lowest();
    for (int i = 0; i < n; ++i) {
        if (x[i] < cap && x[i] > best) best = x[i];
    }
    return best;
}
