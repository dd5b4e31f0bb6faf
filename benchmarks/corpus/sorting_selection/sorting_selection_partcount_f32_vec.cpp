// Selection: how many float values are below, equal to and above a pivot (the sizes of a three-way
// partition); vector arguments.
#include <vector>

// regrapht: n = 1<<24; pivot = 0; x[n] in ~ uniform(-1, 1); counts[3] out
void partition_count_f32(float pivot, const std::vector<float>& x, std::vector<long long>& counts) {
    const int n = static_cast<int>(x.size());
    long long less = 0, equal = 0, greater = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < pivot) less++;
        else if (x[i] == pivot) equal++;
        else greater++;
    }
    counts[0] = less;
    counts[1] = equal;
    counts[2] = greater;
}
