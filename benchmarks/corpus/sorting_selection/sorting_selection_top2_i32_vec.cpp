// Selection: the two largest int values (top-2) in one pass; vector arguments.
#include <climits>
#include <vector>

// regrapht: n = 1<<24; x[n] in ~ int(-1000000, 1000000); top[2] out
void top2_i32(const std::vector<int>& x, std::vector<int>& top) {
    const int n = static_cast<int>(x.size());
    int first = INT_MIN;
    int second = INT_MIN;
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
