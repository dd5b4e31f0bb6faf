#include <vector>
int find_first(const std::vector<int>& v, int key) {
    for (int i = 0; i < (int)v.size(); ++i)
        if (v[i] == key) return i;
    return -1;
}
