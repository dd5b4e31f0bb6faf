// Search: for each query, how many elements of an unsorted float array are smaller (its lower_bound
// once sorted), by a linear scan; vector arguments.
#include <vector>

// regrapht: m = 8192; k = 8192; a[m] in ~ uniform(0, 1); q[k] in ~ uniform(0, 1); pos[k] out
void linear_rank_f32(const std::vector<float>& a, const std::vector<float>& q,
                     std::vector<int>& pos) {
    const int m = static_cast<int>(a.size());
    const int k = static_cast<int>(q.size());
    for (int j = 0; j < k; ++j) {
        int below = 0;
        for (int i = 0; i < m; ++i) {
            if (a[i] < q[j]) below++;
        }
        pos[j] = below;
    }
}
