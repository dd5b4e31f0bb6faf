#include <vector>
#include <algorithm>
void clear_scores(std::vector<float>& s, int n) {
    std::fill_n(s.begin(), n, 0.0f);
}
