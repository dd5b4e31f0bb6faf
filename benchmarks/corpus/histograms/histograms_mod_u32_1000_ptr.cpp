// Histogram: unsigned int counts of unsigned int keys modulo the bin count (hash buckets); pointer
// arguments.

// regrapht: n = 1<<24; nbins = 1000; keys[n] in ~ int(0, 4000000000); hist[nbins] out
void histogram_mod_u32(int n, int nbins, const unsigned int* keys, unsigned int* hist) {
    for (int b = 0; b < nbins; ++b) hist[b] = 0;
    for (int i = 0; i < n; ++i) {
        hist[keys[i] % (unsigned int)nbins]++;
    }
}
