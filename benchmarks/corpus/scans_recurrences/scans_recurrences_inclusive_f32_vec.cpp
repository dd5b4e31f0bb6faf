// Scan: inclusive prefix sum of float values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(0, 1); out[n] out
void inclusive_f32(const std::vector<float>& x, std::vector<float>& out) {
    const int n = static_cast<int>(x.size());
    float running = 0.0f;
    for (int i = 0; i < n; ++i) {
        running += x[i];
        out[i] = running;
    }
}
