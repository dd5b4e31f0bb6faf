#include <cmath>
#include <vector>
#include <cstddef>
// n-body accelerations, all pairs
void accel(const std::vector<float>& px, const std::vector<float>& py, std::vector<float>& ax, std::vector<float>& ay) {
    const std::size_t n = px.size();
    for (std::size_t i = 0; i < n; ++i) {
        float sx = 0, sy = 0;
        for (std::size_t j = 0; j < n; ++j) {
            float dx = px[j] - px[i], dy = py[j] - py[i];
            float d2 = dx * dx + dy * dy + 1e-3f;
            float inv = 1.0f / (d2 * std::sqrt(d2));
            sx += dx * inv; sy += dy * inv;
        }
        ax[i] = sx; ay[i] = sy;
    }
}
