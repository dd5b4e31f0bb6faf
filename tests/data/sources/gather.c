/* An indexed gather: the length of `src` depends on the values in `idx`, which no
   analysis of the code can know. Extraction must ask for an annotation. */

void gather(int n, const int *idx, const float *src, float *dst)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[idx[i]];
}
