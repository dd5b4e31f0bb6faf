#include <vector>
#include <numeric>
std::vector<int> indices(int n) {
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    return idx;
}
