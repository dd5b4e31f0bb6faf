#include <vector>
#include <numeric>
std::vector<long> running_totals(const std::vector<long>& v) {
    std::vector<long> out(v.size());
    std::partial_sum(v.begin(), v.end(), out.begin());
    return out;
}
