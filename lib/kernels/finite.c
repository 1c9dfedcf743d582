/* finite.c — the scan for NaN and infinity that every forward pass runs over
 * its hidden state: one pass of integer ORs, which the compiler vectorises. */
#include <stdint.h>
#include <string.h>

#include "kernels.h"

enum { BLOCK = 1024 }; /* values tested at a time before looking for which one */

/* 1 when x (the bits of a float) is NaN or an infinity: every exponent bit set. */
static uint32_t nonfinite_bits(uint32_t x)
{
    return (x & 0x7f800000u) == 0x7f800000u;
}

/* Whether any of x[0..n) is NaN or infinite. */
static int any_nonfinite(const float *x, size_t n)
{
    uint32_t any = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, x + i, sizeof bits);
        any |= nonfinite_bits(bits);
    }
    return any != 0;
}

size_t tf_first_nonfinite(const float *x, size_t n)
{
    for (size_t start = 0; start < n; start += BLOCK) {
        const size_t len = n - start < BLOCK ? n - start : BLOCK;
        if (!any_nonfinite(x + start, len))
            continue;
        for (size_t i = start;; i++) {
            uint32_t bits;
            memcpy(&bits, x + i, sizeof bits);
            if (nonfinite_bits(bits))
                return i;
        }
    }
    return n;
}
