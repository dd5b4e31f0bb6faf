// Arg-reduction: the index and value of the minimum (last on ties) of int values; vector arguments.
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(-100, 100); idx[1] out; val[1] out
void argmin_i32(const std::vector<int>& x, std::vector<int>& idx, std::vector<int>& val) {
    const int n = static_cast<int>(x.size());
    int arg = 0;
    int best = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] <= best) {
            best = x[i];
            arg = i;
        }
    }
    idx[0] = arg;
    val[0] = best;
}
