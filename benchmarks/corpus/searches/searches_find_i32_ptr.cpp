// Search: index of the first element equal to a key in unsorted int data, or -1; pointer arguments.

// regrapht: n = 1<<25; key = 4321987; x[n] in ~ int(0, 32000000)
int find_i32(int n, int key, const int* x) {
    for (int i = 0; i < n; ++i) {
        if (x[i] == key) return i;
    }
    return -1;
}
