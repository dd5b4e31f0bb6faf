// Search: lower_bound of each query in a sorted double array (binary search); vector arguments.
#include <algorithm>
#include <vector>

// regrapht: m = 1<<20; k = 1<<18; a[m] in ~ sorted(0, 1); q[k] in ~ uniform(0, 1); pos[k] out
void lower_bound_f64(const std::vector<double>& a, const std::vector<double>& q,
                     std::vector<int>& pos) {
    for (size_t j = 0; j < q.size(); ++j) {
        pos[j] = (int)(std::lower_bound(a.begin(), a.end(), q[j]) - a.begin());
    }
}
