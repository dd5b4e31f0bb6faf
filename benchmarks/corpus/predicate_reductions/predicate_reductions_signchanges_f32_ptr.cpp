// Predicate reduction: the number of sign changes between neighbours of float values; pointer
// arguments.

// regrapht: n = 1<<25; x[n] in ~ uniform(-1, 1)
int signchanges_f32(int n, const float* x) {
    int changes = 0;
    for (int i = 1; i < n; ++i) {
        bool a = x[i - 1] < 0;
        bool b = x[i] < 0;
        if (a != b) changes++;
    }
    return changes;
}
