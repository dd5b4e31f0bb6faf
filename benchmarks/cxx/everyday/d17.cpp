#include <vector>
void threshold(const std::vector<unsigned char>& img, std::vector<unsigned char>& out, unsigned char t) {
    const auto n = img.size();
    for (auto i = 0u; i < n; ++i) out[i] = img[i] > t ? 255 : 0;
}
