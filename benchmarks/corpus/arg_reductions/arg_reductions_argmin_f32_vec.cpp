// Arg-reduction: the index and value of the minimum (last on ties) of float values; vector
// arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ uniform(-1, 1); idx[1] out; val[1] out
void argmin_f32(const std::vector<float>& x, std::vector<int>& idx, std::vector<float>& val) {
    const int n = static_cast<int>(x.size());
    int arg = 0;
    float best = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] <= best) {
            best = x[i];
            arg = i;
        }
    }
    idx[0] = arg;
    val[0] = best;
}
