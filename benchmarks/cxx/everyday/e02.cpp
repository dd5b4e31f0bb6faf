#include <vector>
void double_all(std::vector<int>& v) {
    for (auto it = v.begin(); it != v.end(); ++it) *it *= 2;
}
