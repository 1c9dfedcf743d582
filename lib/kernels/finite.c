/* finite.c — the scans a forward pass runs over its hidden state and its
 * queries and keys to catch float32 overflow: on vectors (vec.h), compiled
 * once. */
#include <stdint.h>

#include "kernels.h"
#include "vec.h"

enum { BLOCK = 1024 }; /* values tested at a time before looking for which one */

/* Lanes of v (the bits of floats) that are NaN or an infinity: every
 * exponent bit set. */
static tf__vi nonfinite_lanes(tf__vu v)
{
    const tf__vu exponent = (tf__vu){0} + 0x7f800000u;
    return (tf__vi)((v & exponent) == exponent);
}

/* Whether any of x[0..n) is NaN or infinite. */
static int any_nonfinite(const float *x, size_t n)
{
    tf__vi any0 = {0}, any1 = {0};
    size_t i = 0;
    for (; i + 2 * TF_VW <= n; i += 2 * TF_VW) {
        tf__vu a, b;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, x + i + TF_VW, sizeof b);
        any0 |= nonfinite_lanes(a);
        any1 |= nonfinite_lanes(b);
    }
    if (i + TF_VW <= n) {
        tf__vu a;
        memcpy(&a, x + i, sizeof a);
        any0 |= nonfinite_lanes(a);
        i += TF_VW;
    }
    tf__vu rest;
    const tf__vf part = tf__vf_load_part(x + i, n - i, 0.0f);
    memcpy(&rest, &part, sizeof rest);
    any0 |= any1 | nonfinite_lanes(rest);
    for (size_t k = 0; k < TF_VW; k++)
        if (any0[k])
            return 1;
    return 0;
}

size_t tf__first_nonfinite(const float *x, size_t n)
{
    for (size_t start = 0; start < n; start += BLOCK) {
        const size_t len = n - start < BLOCK ? n - start : BLOCK;
        if (!any_nonfinite(x + start, len))
            continue;
        for (size_t i = start;; i++) {
            uint32_t bits;
            memcpy(&bits, x + i, sizeof bits);
            if ((bits & 0x7f800000u) == 0x7f800000u)
                return i;
        }
    }
    return n;
}

float tf__max_abs(const float *x, size_t n)
{
    const tf__vu magnitude = (tf__vu){0} + 0x7fffffffu;
    tf__vf max0 = tf__vf_splat(0.0f), max1 = max0;
    size_t i = 0;
    for (; i + 2 * TF_VW <= n; i += 2 * TF_VW) {
        max0 = tf__vf_max(max0, (tf__vf)((tf__vu)tf__vf_load(x + i) & magnitude));
        max1 = tf__vf_max(max1, (tf__vf)((tf__vu)tf__vf_load(x + i + TF_VW) & magnitude));
    }
    for (; i < n; i += TF_VW) {
        const size_t part = n - i < TF_VW ? n - i : TF_VW;
        const tf__vf v = (tf__vf)((tf__vu)tf__vf_load_part(x + i, part, 0.0f) & magnitude);
        max0 = tf__vf_max(max0, v);
    }
    return tf__vf_max_lane(tf__vf_max(max0, max1));
}
