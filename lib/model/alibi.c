/* alibi.c — ALiBi's head slopes (see alibi.h). */
#include "alibi.h"

#include <math.h>

void tf__alibi_slopes(float *slopes, size_t H)
{
    size_t P = 1; /* the largest power of two <= H */
    while (P * 2 <= H)
        P *= 2;
    for (size_t h = 0; h < P; h++) /* 2^(-8/P) raised to h + 1 */
        slopes[h] = (float)pow(2.0, -8.0 * (double)(h + 1) / (double)P);
    for (size_t h = P; h < H; h++) /* 2P's slopes 1, 3, 5, ... (0-based 0, 2, 4, ...) */
        slopes[h] = (float)pow(2.0, -8.0 * (double)(2 * (h - P) + 1) / (double)(2 * P));
}
