// Search: index of the first element above a threshold in sorted int data, or -1; pointer
// arguments.

// regrapht: n = 1<<25; t = 750000; x[n] in ~ sorted(0, 1000000)
int firstabove_i32(int n, int t, const int* x) {
    int found = -1;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) {
            found = i;
            break;
        }
    }
    return found;
}
