// Sorting: stable counting sort of (key, value) pairs by small int keys in [0, NKEYS); pointer
// arguments.

#define NKEYS 1024

// regrapht: n = 1<<23; keys[n] in ~ int(0, 1023); vals[n] in ~ uniform(-1, 1); out_keys[n] out
// regrapht: out_vals[n] out
void counting_sort_pairs(int n, const int* keys, const float* vals, int* out_keys,
                         float* out_vals) {
    int offset[NKEYS + 1];
    for (int v = 0; v <= NKEYS; ++v) offset[v] = 0;
    for (int i = 0; i < n; ++i) {
        offset[keys[i] + 1]++;
    }
    for (int v = 0; v < NKEYS; ++v) {
        offset[v + 1] += offset[v];
    }
    for (int i = 0; i < n; ++i) {
        int at = offset[keys[i]]++;
        out_keys[at] = keys[i];
        out_vals[at] = vals[i];
    }
}
