// Selection: the two largest float values (top-2) in one pass; vector arguments.
#include <cfloat>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ normal(0, 1); top[2] out
void top2_f32(const std::vector<float>& x, std::vector<float>& top) {
    const int n = static_cast<int>(x.size());
    float first = -FLT_MAX;
    float second = -FLT_MAX;
    for (int i = 0; i < n; ++i) {
        if (x[i] > first) {
            second = first;
            first = x[i];
        } else if (x[i] > second) {
            second = x[i];
        }
    }
    top[0] = first;
    top[1] = second;
}
