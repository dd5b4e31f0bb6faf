// Indexed map: an embedding lookup: row ids[i] of a 4096-row table, dim values per row, double,
// vector arguments.
#include <vector>

// regrapht: n = 1<<18; dim = 64; ids[n] in ~ int(0, 4095); table[4096*dim] in ~ uniform(-100, 100)
// regrapht: out[n*dim] out
void embedding_f64(int n, int dim, const std::vector<int>& ids, const std::vector<double>& table,
                   std::vector<double>& out) {
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < dim; ++j) {
            out[i * dim + j] = table[ids[i] * dim + j];
        }
    }
}
