// Selection: stable partition of float values around a pivot into out (smaller ones first),
// returning how many are smaller; vector arguments.
#include <vector>

// regrapht: n = 1<<24; pivot = 0.25; x[n] in ~ uniform(-1, 1); out[n] out
int stable_partition_f32(float pivot, const std::vector<float>& x, std::vector<float>& out) {
    const int n = static_cast<int>(x.size());
    int at = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < pivot) out[at++] = x[i];
    }
    for (int i = 0; i < n; ++i) {
        if (!(x[i] < pivot)) out[at++] = x[i];
    }
    return at;
}
