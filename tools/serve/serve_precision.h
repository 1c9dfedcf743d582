/* serve_precision.h — quantized embeddings on /embed, /v1/embeddings and
 * /embed_all: the body's "precision" (sentence-transformers' names:
 * "float32", the default, "int8", "uint8", "binary", "ubinary"), and the
 * vectors of a request quantized together by tf_quantize (int8 and uint8:
 * each dimension's range over the rows of the server's --calibration
 * embeddings, as quantize_embeddings' calibration_embeddings, else over
 * the request's own vectors), answered as integers, or with OpenAI's
 * encoding_format "base64" as the base64 of each row's bytes. */
#ifndef SERVE_PRECISION_H
#define SERVE_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#include "json_out.h"
#include "request.h"

/* tfenc serve --calibration FILE.npy, read at start (serve.c). */
typedef struct serve_calibration {
    int32_t dim;   /* values a row: the model's */
    float *ranges; /* [2, dim]: each dimension's minimum, then maximum, over the file's rows */
} serve_calibration;

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

/* *rows = vectors [n, width] in q->precision, int8 / uint8 ranges from
 * q->calibration (NULL: the n rows'); 0, or -1 with *e: 400 (TEI's 422)
 * naming "precision" and tf_quantize's message (without calibration, a
 * dimension without a range: one input, or inputs equal there), or the
 * two widths when the calibration's is not width ("dimensions"). */
int serve_quantize_rows(const serve_request *q, const float *vectors, size_t n, size_t width,
                        serve_rows *rows, serve_error *e);
/* The same for the request's q->n vectors. */
int serve_quantize(const serve_request *q, const float *vectors, size_t width, serve_rows *rows,
                   serve_error *e);
void serve_rows_free(serve_rows *rows);

/* Row i as a JSON array of numbers (floats, or integers), or with base64
 * a JSON string: the base64 of its bytes (little-endian float32 for
 * float32, as OpenAI's encoding_format "base64"). */
void serve_write_row(json_out *o, const serve_rows *rows, size_t i, int base64);

#endif
