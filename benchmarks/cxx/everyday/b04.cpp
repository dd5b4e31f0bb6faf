#include <vector>
#include <cstddef>
void blur_rows(const std::vector<float>& img, std::vector<float>& out, int w, int h) {
    for (int y = 0; y < h; ++y) {
        for (int x = 1; x < w - 1; ++x) {
            const int idx = y * w + x;
            out[idx] = (img[idx - 1] + img[idx] + img[idx + 1]) / 3.0f;
        }
    }
}
