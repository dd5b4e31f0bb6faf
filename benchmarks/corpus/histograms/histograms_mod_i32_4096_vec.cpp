// Histogram: int counts of unsigned int keys modulo the bin count (hash buckets); vector arguments.
#include <vector>

// regrapht: n = 1<<24; nbins = 4096; keys[n] in ~ int(0, 4000000000); hist[nbins] out
void histogram_mod_i32(int nbins, const std::vector<unsigned int>& keys, std::vector<int>& hist) {
    const int n = static_cast<int>(keys.size());
    for (int b = 0; b < nbins; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        hist[keys[i] % (unsigned int)nbins]++;
    }
}
