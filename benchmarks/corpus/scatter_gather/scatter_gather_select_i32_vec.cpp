// Indexed map: a conditional select out[i] = mask[i] ? a[i] : b[i], int, vector arguments.
#include <vector>

// regrapht: n = 1<<22; mask[n] in ~ int(0, 1); a[n] in ~ int(-1000000, 1000000)
// regrapht: b[n] in ~ int(-1000000, 1000000); out[n] out
void select_i32(int n, const std::vector<unsigned char>& mask, const std::vector<int>& a,
                const std::vector<int>& b, std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        out[i] = mask[i] ? a[i] : b[i];
    }
}
