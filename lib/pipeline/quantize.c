/* quantize.c — tf_quantize: embeddings in sentence-transformers' precisions,
 * as sentence_transformers/quantization.py's quantize_embeddings computes
 * them from float32 embeddings (see tfenc.h for where the two differ).
 * Pure compute: no allocation, and nothing is written before every value
 * and range has been checked. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "names.h"

/* upstream's 256 buckets: step = (max - min) / BUCKET_STEPS */
#define BUCKET_STEPS 255.0f

/* The lowest and highest bucket of an integer precision, and what
 * upstream takes off the bucket index: int8 is the uint8 bucket - 128. */
typedef struct bucket_kind {
    float offset;
    int lowest, highest;
    int is_signed; /* int8_t out, else uint8_t */
} bucket_kind;

static const bucket_kind int8_buckets = {128.0f, INT8_MIN, INT8_MAX, 1};
static const bucket_kind uint8_buckets = {0.0f, 0, UINT8_MAX, 0};

/* One dimension's range: its start (the minimum) and step. */
typedef struct bucket_range {
    float start, step;
} bucket_range;

size_t tf_precision_row_bytes(int32_t precision, int32_t dim)
{
    if (dim < 1)
        return 0;
    switch (precision) {
    case TF_PRECISION_FLOAT32:
        return (size_t)dim * sizeof(float);
    case TF_PRECISION_INT8:
    case TF_PRECISION_UINT8:
        return (size_t)dim;
    case TF_PRECISION_BINARY:
    case TF_PRECISION_UBINARY:
        return ((size_t)dim + 7) / 8;
    default:
        return 0;
    }
}

/* TF_OK when every value of x [rows, dim] is finite; else the failure
 * naming `what`[row][column] and its value. */
static tf_status check_finite(const char *what, const float *x, size_t rows, int32_t dim)
{
    for (size_t r = 0; r < rows; r++)
        for (int32_t d = 0; d < dim; d++)
            if (!isfinite(x[r * (size_t)dim + (size_t)d]))
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "%s[%zu][%d] is %g: tf_quantize takes finite values", what, r,
                                (int)d, (double)x[r * (size_t)dim + (size_t)d]);
    return TF_OK;
}

/* Dimension d's range: ranges [2, dim] (minima, then maxima) when given,
 * else the minimum and maximum of column d of embeddings [n, dim], as
 * upstream's np.min / np.max over axis 0. Upstream's step in float32; a
 * maximum below the minimum, or a step that is not a positive finite
 * float32 (a constant dimension: max == min), is refused. */
static tf_status range_of(const float *embeddings, size_t n, int32_t dim, const float *ranges,
                          int32_t d, bucket_range *out)
{
    float lo, hi;
    if (ranges) {
        lo = ranges[d], hi = ranges[dim + d];
    } else {
        lo = hi = embeddings[d];
        for (size_t r = 1; r < n; r++) {
            const float x = embeddings[r * (size_t)dim + (size_t)d];
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
    }
    const char *what = ranges ? "ranges" : "embeddings";
    if (hi < lo)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: dimension %d's maximum %.9g is below its minimum %.9g", what, (int)d,
                        (double)hi, (double)lo);
    const float span = hi - lo; /* float32, as bucket_of's steps */
    const float step = span / BUCKET_STEPS;
    if (!(step > 0.0f) || !isfinite(step))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: dimension %d has no range to quantize (minimum %.9g, maximum %.9g: "
                        "step (max - min) / 255 = %g in float32); int8 and uint8 need a maximum "
                        "above the minimum in every dimension (calibration embeddings that "
                        "differ there)",
                        what, (int)d, (double)lo, (double)hi, (double)step);
    out->start = lo, out->step = step;
    return TF_OK;
}

/* x's bucket: upstream's (x - start) / step - offset, each step rounded to
 * float32 (an assignment drops any wider evaluation, C11 5.2.4.2.2),
 * truncated toward zero as numpy's astype casts; outside the precision,
 * the end bucket (where numpy's cast is undefined). */
static int bucket_of(float x, bucket_range range, bucket_kind kind)
{
    const float shifted = x - range.start;
    const float scaled = shifted / range.step;
    const float q = scaled - kind.offset; /* finite or +-inf */
    if (q >= (float)kind.highest)
        return kind.highest;
    if (q <= (float)kind.lowest)
        return kind.lowest;
    return (int)q;
}

/* out [n, dim] = the buckets of embeddings [n, dim], column by column (no
 * workspace): every range is checked before the first value is written. */
static tf_status quantize_buckets(const float *embeddings, size_t n, int32_t dim,
                                  const float *ranges, bucket_kind kind, void *out)
{
    bucket_range range;
    for (int32_t d = 0; d < dim; d++) {
        const tf_status s = range_of(embeddings, n, dim, ranges, d, &range);
        if (s != TF_OK)
            return s;
    }
    int8_t *out_i8 = out;  /* [n, dim] when is_signed */
    uint8_t *out_u8 = out; /* [n, dim] otherwise */
    for (int32_t d = 0; d < dim; d++) {
        (void)range_of(embeddings, n, dim, ranges, d, &range); /* checked above */
        for (size_t r = 0; r < n; r++) {
            const size_t at = r * (size_t)dim + (size_t)d;
            const int bucket = bucket_of(embeddings[at], range, kind);
            if (kind.is_signed)
                out_i8[at] = (int8_t)bucket;
            else
                out_u8[at] = (uint8_t)bucket;
        }
    }
    return TF_OK;
}

/* out [n, ceil(dim / 8)] = numpy.packbits(embeddings > 0, axis=-1): each
 * row on its own, its first value in the high bit of its first byte, the
 * last byte padded with zero bits; binary is each byte - 128. */
static void quantize_bits(const float *embeddings, size_t n, int32_t dim, int is_signed, void *out)
{
    const size_t row_bytes = ((size_t)dim + 7) / 8;
    int8_t *out_i8 = out;  /* [n, row_bytes] when is_signed */
    uint8_t *out_u8 = out; /* [n, row_bytes] otherwise */
    for (size_t r = 0; r < n; r++) {
        const float *row = embeddings + r * (size_t)dim; /* [dim] */
        for (size_t b = 0; b < row_bytes; b++) {
            unsigned byte = 0;
            for (size_t k = 0; k < 8; k++) {
                const size_t d = b * 8 + k;
                byte = byte << 1 | (unsigned)(d < (size_t)dim && row[d] > 0.0f);
            }
            if (is_signed)
                out_i8[r * row_bytes + b] = (int8_t)((int)byte - 128);
            else
                out_u8[r * row_bytes + b] = (uint8_t)byte;
        }
    }
}

/* The arguments every precision needs, checked in the order of the
 * signature; *row_bytes = one output row's bytes. */
static tf_status check_arguments(const float *embeddings, size_t n, int32_t dim, int32_t precision,
                                 const float *ranges, const void *out, size_t out_bytes,
                                 size_t *row_bytes)
{
    if (dim < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "dim: expected >= 1, got %d", (int)dim);
    if (precision < 0 || precision >= TF_PRECISION_COUNT)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "precision: expected a tf_precision (0..%d), got %d",
                        TF_PRECISION_COUNT - 1, (int)precision);
    *row_bytes = tf_precision_row_bytes(precision, dim);
    if (n == 0)
        return TF_OK;
    if (!embeddings)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "embeddings is NULL; it must hold [%zu, %d] floats", n, (int)dim);
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL; it must hold %zu rows of %zu bytes",
                        n, *row_bytes);
    size_t need;
    if (!tf__mul_size(n, *row_bytes, &need) || out_bytes < need)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "out_bytes: %zu rows of %s need %zu bytes each, got %zu bytes", n,
                        tf_precision_name(precision), *row_bytes, out_bytes);
    tf_status s = check_finite("embeddings", embeddings, n, dim);
    if (s == TF_OK && ranges && (precision == TF_PRECISION_INT8 || precision == TF_PRECISION_UINT8))
        s = check_finite("ranges", ranges, 2, dim);
    return s;
}

tf_status tf_quantize(const float *embeddings, size_t n, int32_t dim, int32_t precision,
                      const float *ranges, void *out, size_t out_bytes)
{
    size_t row_bytes = 0;
    const tf_status s = check_arguments(embeddings, n, dim, precision, ranges, out, out_bytes,
                                        &row_bytes);
    if (s != TF_OK || n == 0)
        return s;
    if (precision == TF_PRECISION_FLOAT32)
        memcpy(out, embeddings, n * row_bytes);
    else if (precision == TF_PRECISION_INT8)
        return quantize_buckets(embeddings, n, dim, ranges, int8_buckets, out);
    else if (precision == TF_PRECISION_UINT8)
        return quantize_buckets(embeddings, n, dim, ranges, uint8_buckets, out);
    else
        quantize_bits(embeddings, n, dim, precision == TF_PRECISION_BINARY, out);
    return TF_OK;
}
