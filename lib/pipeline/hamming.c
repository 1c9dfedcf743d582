/* hamming.c — tf_hamming_distance: the bits that differ between packed
 * binary / ubinary rows (tf_quantize's layout: numpy.packbits, the first
 * value in the high bit). Binary's bytes are ubinary's less 128, which
 * flips the high bit of both rows alike, so one count serves both.
 * Pure compute: no allocation, nothing written before the arguments pass.
 *
 * Dimensions: A rows of a, B rows of b, D values a row, R = ceil(D / 8)
 * bytes a row. */
#include <stdint.h>

#include "error.h"
#include "tfenc.h"

/* The set bits of x. */
static int32_t bits_set(uint8_t x)
{
    int32_t n = 0;
    for (; x; x &= (uint8_t)(x - 1))
        n++;
    return n;
}

/* The first dim bits of rows a and b (R bytes each) that differ. */
static int32_t row_distance(const uint8_t *a, const uint8_t *b, int32_t dim)
{
    const size_t full = (size_t)dim / 8; /* bytes whose 8 bits are all values */
    const int32_t tail = dim % 8;        /* values in the last byte, from its high bit */
    int32_t n = 0;
    for (size_t i = 0; i < full; i++)
        n += bits_set((uint8_t)(a[i] ^ b[i]));
    if (tail)
        n += bits_set((uint8_t)((a[full] ^ b[full]) & (uint8_t)(0xFFu << (8 - tail))));
    return n;
}

tf_status tf_hamming_distance(const void *a, size_t n_a, const void *b, size_t n_b, int32_t dim,
                              int32_t *out)
{
    if (dim < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "dim: expected >= 1 values a row, got %d",
                        (int)dim);
    if (n_a == 0 || n_b == 0)
        return TF_OK;
    if (!a || !b || !out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL (n_a %zu, n_b %zu)",
                        !a       ? "a"
                            : !b ? "b"
                                 : "out",
                        n_a, n_b);
    const size_t R = ((size_t)dim + 7) / 8;
    const uint8_t *rows_a = a, *rows_b = b; /* (A, R), (B, R) */
    for (size_t i = 0; i < n_a; i++)
        for (size_t j = 0; j < n_b; j++)
            out[i * n_b + j] = row_distance(rows_a + i * R, rows_b + j * R, dim);
    return TF_OK;
}
