#include <vector>

// Counts the values strictly greater than a threshold; the count goes out by reference.
void count_above(const std::vector<int>& values, int threshold, int& count) {
    count = 0;
    for (int i = 0; i < static_cast<int>(values.size()); i++) {
        if (values[i] > threshold) {
            ++count;
        }
    }
}
