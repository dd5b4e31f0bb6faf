#include <vector>
#include <algorithm>
std::vector<int> grade_counts(const std::vector<int>& scores) {
    std::vector<int> counts(10);
    std::fill(counts.begin(), counts.end(), 0);
    for (int s : scores) {
        int b = s / 10;
        if (b > 9) b = 9;
        if (b < 0) b = 0;
        counts[b]++;
    }
    return counts;
}
