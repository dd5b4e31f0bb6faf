// Search: index of the first element above a threshold in sorted data, or -1, by a linear
// scan with an early break (about 3/4 of the array is read). The break makes the trip
// count data-dependent: the map rewriter refuses it; the first-match rewriter makes it a
// min-reduction of the matching indices (which reads the whole array).
// regrapht: n = 1<<25; t = 0.75; x[n] in ~ sorted(0, 1)
int find_first_above(int n, float t, const float* x) {
    int found = -1;
    for (int i = 0; i < n; ++i) {
        if (x[i] > t) {
            found = i;
            break;
        }
    }
    return found;
}
