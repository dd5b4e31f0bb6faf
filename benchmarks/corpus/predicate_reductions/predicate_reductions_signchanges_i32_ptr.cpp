// Predicate reduction: the number of sign changes between neighbours of int values; pointer
// arguments.

// regrapht: n = 1<<25; x[n] in ~ int(-1000, 1000)
int signchanges_i32(int n, const int* x) {
    int changes = 0;
    for (int i = 1; i < n; ++i) {
        bool a = x[i - 1] < 0;
        bool b = x[i] < 0;
        if (a != b) changes++;
    }
    return changes;
}
