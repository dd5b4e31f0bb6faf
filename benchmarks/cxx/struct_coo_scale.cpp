#include <vector>
#include <cstddef>

struct Triplet {
    int row, col;
    double value;
};

// Scales a COO sparse matrix; diagonal entries additionally get a shift (A*alpha + sigma*I).
void scale_coo(std::vector<Triplet>& entries, double alpha, double sigma) {
    for (std::size_t k = 0; k < entries.size(); ++k) {
        entries[k].value *= alpha;
        if (entries[k].row == entries[k].col) {
            entries[k].value += sigma;
        }
    }
}
