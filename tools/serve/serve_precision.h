/* serve_precision.h — quantized embeddings on /embed and /v1/embeddings:
 * the body's "precision" (sentence-transformers' names: "float32", the
 * default, "int8", "uint8", "binary", "ubinary"), and the vectors of a
 * request quantized together by tf_quantize (each dimension's range over
 * the request's inputs), answered as integers, or with OpenAI's
 * encoding_format "base64" as the base64 of each row's bytes. */
#ifndef SERVE_PRECISION_H
#define SERVE_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include "json_out.h"
#include "request.h"

/* A request's vectors as answered: the floats, or tf_quantize's bytes. */
typedef struct serve_rows {
    int32_t precision;   /* a tf_precision */
    size_t n, width;     /* rows, values a row (bytes a row when quantized) */
    const float *floats; /* [n, width] for float32 (the caller's) */
    void *bytes;         /* [n, width] int8_t or uint8_t otherwise (owned) */
} serve_rows;

/* The body's optional "precision" into r->precision; 0, or -1 with *e
 * (400, TEI's 422) naming the field, the names it takes and the value. */
int serve_field_precision(serve_request *r, serve_error *e);

/* *rows = vectors [n, width] in q->precision; 0, or -1 with *e: 400
 * (TEI's 422) naming "precision" and tf_quantize's message (a dimension
 * without a range: one input, or inputs equal there). */
int serve_quantize(const serve_request *q, const float *vectors, size_t width, serve_rows *rows,
                   serve_error *e);
void serve_rows_free(serve_rows *rows);

/* Row i as a JSON array of numbers (floats, or integers), or with base64
 * a JSON string: the base64 of its bytes (little-endian float32 for
 * float32, as OpenAI's encoding_format "base64"). */
void serve_write_row(json_out *o, const serve_rows *rows, size_t i, int base64);

#endif
