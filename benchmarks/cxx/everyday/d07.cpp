#include <vector>
#include <cstddef>
// stereo to mono: average each interleaved pair
void downmix(const std::vector<float>& stereo, std::vector<float>& mono) {
    for (std::size_t i = 0; i + 1 < stereo.size(); i += 2)
        mono[i / 2] = 0.5f * (stereo[i] + stereo[i + 1]);
}
