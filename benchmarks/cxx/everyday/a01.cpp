#include <vector>
#include <cstddef>
// histogram of byte values
std::vector<int> histogram(const std::vector<unsigned char>& data) {
    std::vector<int> bins(256, 0);
    for (unsigned char c : data) bins[c]++;
    return bins;
}
