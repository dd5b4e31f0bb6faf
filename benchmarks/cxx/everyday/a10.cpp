#include <vector>
#include <numeric>
// prefix sum
std::vector<long> prefix(const std::vector<int>& v) {
    std::vector<long> out(v.size());
    long acc = 0;
    for (size_t i = 0; i < v.size(); ++i) { acc += v[i]; out[i] = acc; }
    return out;
}
