/* checked.h — size arithmetic that reports overflow instead of wrapping. */
#ifndef TF_CHECKED_H
#define TF_CHECKED_H

#include <stddef.h>
#include <stdint.h>

/* *out = a * b; returns 0 on overflow (then *out is unspecified). */
static inline int tf__mul_size(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* *out = a + b; returns 0 on overflow. */
static inline int tf__add_size(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a)
        return 0;
    *out = a + b;
    return 1;
}

#endif
