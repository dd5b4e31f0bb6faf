#include <vector>
#include <cstdint>
#include <cstddef>
// bit count of each word
std::vector<int> popcounts(const std::vector<uint32_t>& words) {
    std::vector<int> out;
    out.reserve(words.size());
    for (uint32_t w : words) {
        int c = 0;
        while (w) { c += w & 1u; w >>= 1; }
        out.push_back(c);
    }
    return out;
}
