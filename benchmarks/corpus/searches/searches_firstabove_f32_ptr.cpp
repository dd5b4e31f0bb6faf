// Search: index of the first element above a threshold in sorted float data, or -1; pointer
// arguments.

// regrapht: n = 1<<25; t = 0.75; x[n] in ~ sorted(0, 1)
int firstabove_f32(int n, float t, const float* x) {
    int found = -1;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) {
            found = i;
            break;
        }
    }
    return found;
}
