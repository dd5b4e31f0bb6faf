// Indexed map: a conditional select out[i] = mask[i] ? a[i] : b[i], float, vector arguments.
#include <vector>

// regrapht: n = 1<<22; mask[n] in ~ int(0, 1); a[n] in ~ uniform(-100, 100)
// regrapht: b[n] in ~ uniform(-100, 100); out[n] out
void select_f32(int n, const std::vector<unsigned char>& mask, const std::vector<float>& a,
                const std::vector<float>& b, std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = mask[i] ? a[i] : b[i];
    }
}
