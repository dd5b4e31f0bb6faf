// Search: how many queries occur in a sorted unsigned int array (binary search per query); pointer
// arguments.

// regrapht: m = 1<<20; k = 1<<18; a[m] in ~ sorted(0, 2000000); q[k] in ~ int(0, 2000000)
int count_present_u32(int m, int k, const unsigned int* a, const unsigned int* q) {
    int found = 0;
    for (int j = 0; j < k; ++j) {
        int lo = 0;
        int hi = m - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (a[mid] == q[j]) {
                found++;
                break;
            }
            if (a[mid] < q[j]) lo = mid + 1;
            else hi = mid - 1;
        }
    }
    return found;
}
