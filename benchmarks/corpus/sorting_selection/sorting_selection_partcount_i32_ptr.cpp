// Selection: how many int values are below, equal to and above a pivot (the sizes of a three-way
// partition); pointer arguments.

// regrapht: n = 1<<24; pivot = 0; x[n] in ~ int(-100, 100); counts[3] out
void partition_count_i32(int n, int pivot, const int* x, long long* counts) {
    long long less = 0, equal = 0, greater = 0;
    for (int i = 0; i < n; ++i) {
        if (x[i] < pivot) less++;
        else if (x[i] == pivot) equal++;
        else greater++;
    }
    counts[0] = less;
    counts[1] = equal;
    counts[2] = greater;
}
