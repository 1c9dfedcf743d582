/* float_text.c — a float32's shortest round-trip text without printf.
 *
 * v and the midpoints to its neighbouring floats (between which strtof
 * reads a decimal back as v) are scaled by 10^(8-k), k v's decimal
 * exponent, so that v's 9th significant digit is the units; then for
 * p = 1, 2, ... digits, v rounded to its p-th digit is v's text if it lies
 * strictly between the midpoints. The arithmetic is double's: a float32
 * and the midpoints (25 significant bits) are exact in double, and a
 * scaled value carries two roundings (the power of ten's and the
 * product's: relative error under 3e-16, under 3e-7 units as it is below
 * 10^9); the digits after are integer. Where a scaled midpoint or a
 * rounding tie lies within UNCERTAIN of the decision,
 * the text comes from printf and strtof instead (a float in a few
 * million), so the answer is always that of the first "%.<p>g" that reads
 * back. */
#include "float_text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Significant digits that always round-trip a float32 (FLT_DECIMAL_DIG). */
enum { ROUND_TRIP_DIGITS = 9 };

/* In units of v's 9th digit: far above the arithmetic's error bound. */
static const double UNCERTAIN = 1e-5;

/* 10^n for n in [POW10_MIN, POW10_MAX], each the double nearest it (exact
 * for 0..22): v's decimal exponent (-45..38) and the scale of its 9th
 * digit to units (10^(8-k): 10^-30..10^53). */
enum { POW10_MIN = -46, POW10_MAX = 53 };
static const double POW10[POW10_MAX - POW10_MIN + 1] = {
    1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39, 1e-38, 1e-37, 1e-36, 1e-35, 1e-34,
    1e-33, 1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21,
    1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,
    1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,   1e4,   1e5,
    1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,  1e18,
    1e19,  1e20,  1e21,  1e22,  1e23,  1e24,  1e25,  1e26,  1e27,  1e28,  1e29,  1e30,  1e31,
    1e32,  1e33,  1e34,  1e35,  1e36,  1e37,  1e38,  1e39,  1e40,  1e41,  1e42,  1e43,  1e44,
    1e45,  1e46,  1e47,  1e48,  1e49,  1e50,  1e51,  1e52,  1e53,
};

static double pow10_of(int n)
{
    return POW10[n - POW10_MIN];
}

static uint32_t bits_of(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static float float_of(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The decimal exponent of v > 0: 10^k <= v < 10^(k+1). From its binary
 * exponent e (2^e <= v < 2^(e+1)), k is floor(e log10 2) or one more; a
 * float is never within 1e-9 (relative) of an inexact power of ten, so
 * comparing with the nearest double decides. */
static int decimal_exponent(float v)
{
    int e;
    frexpf(v, &e);
    const int k = (int)floor((e - 1) * 0.30102999566398120); /* log10(2) */
    return (double)v >= pow10_of(k + 1) ? k + 1 : k;
}

static int near(double a, double b)
{
    return fabs(a - b) < UNCERTAIN;
}

/* The digits of v > 0 (finite): *c (p digits, or 10^p after a carry) and
 * *k with v's text = c x 10^(k-p+1); *p the digits tried. Returns 0, or -1
 * where the double arithmetic cannot decide. */
static int shortest_digits(float v, uint32_t *c, int *k, int *p)
{
    const uint32_t bits = bits_of(v);
    const double d = v, below = float_of(bits - 1); /* v > 0: bits >= 1 */
    const float above = float_of(bits + 1);
    const double lo = (d + below) / 2; /* the midpoints: exact in double */
    const double hi = isinf(above) ? d + (d - below) / 2 : (d + (double)above) / 2;
    *k = decimal_exponent(v);
    /* v, lo and hi in units of v's 9th significant digit: 10^8 <= s < 10^9. */
    const double scale = pow10_of(ROUND_TRIP_DIGITS - 1 - *k);
    const double s = d * scale, ls = lo * scale, hs = hi * scale;
    const uint32_t whole = (uint32_t)s; /* s's integer part and its fraction */
    const double fraction = s - whole;
    uint32_t unit = 100000000; /* the p-th digit's: 10^(9-p) */
    for (*p = 1; *p <= ROUND_TRIP_DIGITS; ++*p, unit /= 10) {
        const double rest = (double)(whole % unit) + fraction; /* below the p-th digit */
        const uint32_t rounded = whole / unit + (rest > 0.5 * unit);
        const double candidate = (double)rounded * unit;
        if (near(rest, 0.5 * unit) || near(candidate, ls) || near(candidate, hs))
            return -1;
        if (candidate > ls && candidate < hs) {
            *c = rounded;
            return 0;
        }
    }
    return -1;
}

/* "%.<p>g"'s layout of the digits c x 10^(k-p+1). */
static size_t lay_out(char *out, int negative, uint32_t c, int k, int p)
{
    char digits[ROUND_TRIP_DIGITS + 1];
    int n = 0;
    for (uint32_t rest = c; rest; rest /= 10) /* c >= 1: backwards */
        digits[n++] = (char)('0' + rest % 10);
    for (int i = 0; i < n / 2; i++) {
        const char t = digits[i];
        digits[i] = digits[n - 1 - i], digits[n - 1 - i] = t;
    }
    if (n > p) /* a carry: 10^p */
        k++;
    while (n > 1 && digits[n - 1] == '0') /* %g drops trailing zeros */
        n--;
    char *o = out;
    if (negative)
        *o++ = '-';
    if (k < -4 || k >= p) { /* d[.ddd]e+XX */
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)n - 1);
            o += n - 1;
        }
        const int e = abs(k); /* float32: at most 45 */
        *o++ = 'e', *o++ = k < 0 ? '-' : '+';
        *o++ = (char)('0' + e / 10), *o++ = (char)('0' + e % 10);
    } else if (k < 0) { /* 0.000ddd */
        *o++ = '0', *o++ = '.';
        for (int z = 0; z < -k - 1; z++)
            *o++ = '0';
        memcpy(o, digits, (size_t)n);
        o += n;
    } else { /* ddd[.ddd], the point after digit k + 1 */
        for (int i = 0; i <= k || i < n; i++) {
            if (i == k + 1)
                *o++ = '.';
            *o++ = i < n ? digits[i] : '0';
        }
    }
    *o = '\0';
    return (size_t)(o - out);
}

/* The first "%.<p>g" that reads back as v. */
static size_t by_printf(char out[TF_FLOAT_TEXT_MAX], float v)
{
    int n = 0;
    for (int p = 1; p <= ROUND_TRIP_DIGITS; p++) {
        n = snprintf(out, TF_FLOAT_TEXT_MAX, "%.*g", p, (double)v);
        if (strtof(out, NULL) == v)
            break;
    }
    return (size_t)n;
}

size_t tf__float_text(char out[TF_FLOAT_TEXT_MAX], float v)
{
    uint32_t c;
    int k, p;
    if (!isfinite(v) || v == 0.0f || shortest_digits(fabsf(v), &c, &k, &p) != 0)
        return by_printf(out, v);
    return lay_out(out, signbit(v) != 0, c, k, p);
}
