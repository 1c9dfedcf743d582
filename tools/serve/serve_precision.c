/* serve_precision.c — "precision" on the embedding routes. */
#include "serve_precision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"
#include "utf8.h"

/* The precisions' names, quoted: "\"float32\", \"int8\", ... or \"ubinary\"". */
static void quoted_names(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int32_t p = 0; tf_precision_name(p) && at < size; p++) {
        const char *sep = p == 0 ? "" : tf_precision_name(p + 1) ? ", " : " or ";
        at += (size_t)snprintf(buf + at, size - at, "%s\"%s\"", sep, tf_precision_name(p));
    }
}

int serve_field_precision(serve_request *r, serve_error *e)
{
    const char *name = NULL;
    if (serve_field_string(r, "precision", &name, e))
        return -1;
    if (!name)
        return 0;
    const int32_t precision = tf_precision_from_name(name);
    if (precision < 0) {
        char names[128];
        quoted_names(names, sizeof names);
        return serve_error_set(e, 400, "precision", "precision: expected %s, got \"%.*s\"", names,
                               tf__utf8_prefix(name, SERVE_QUOTE_BYTES), name);
    }
    r->precision = precision;
    return 0;
}

static int uses_ranges(int32_t precision)
{
    return precision == TF_PRECISION_INT8 || precision == TF_PRECISION_UINT8;
}

int serve_quantize_rows(const serve_request *q, const float *vectors, size_t n, size_t width,
                        serve_rows *rows, serve_error *e)
{
    *rows = (serve_rows){.precision = q->precision, .n = n, .width = width};
    if (q->precision == TF_PRECISION_FLOAT32) {
        rows->floats = vectors;
        return 0;
    }
    const char *name = tf_precision_name(q->precision);
    const serve_calibration *c = uses_ranges(q->precision) ? q->calibration : NULL;
    if (c && width != (size_t)c->dim)
        return serve_error_set(e, 400, "precision",
                               "precision \"%s\": the vectors have %zu values, the server's "
                               "--calibration embeddings %d; ask for all the model's dimensions",
                               name, width, (int)c->dim);
    rows->width = tf_precision_row_bytes(q->precision, (int32_t)width);
    if (!(rows->bytes = malloc(n * rows->width + 1)))
        return serve_error_set(e, 500, "", "out of memory");
    const tf_status s = tf_quantize(vectors, n, (int32_t)width, q->precision, c ? c->ranges : NULL,
                                    rows->bytes, n * rows->width);
    if (s) {
        serve_rows_free(rows);
        const int no_calibration = uses_ranges(q->precision) && !q->calibration;
        return serve_error_set(e, 400, "precision", "precision \"%s\": %s%s", name, tf_last_error(),
                               no_calibration ? " (this server runs without --calibration)" : "");
    }
    return 0;
}

int serve_quantize(const serve_request *q, const float *vectors, size_t width, serve_rows *rows,
                   serve_error *e)
{
    return serve_quantize_rows(q, vectors, q->n, width, rows, e);
}

void serve_rows_free(serve_rows *rows)
{
    free(rows->bytes);
    rows->bytes = NULL;
}

static int is_signed(int32_t precision)
{
    return precision == TF_PRECISION_INT8 || precision == TF_PRECISION_BINARY;
}

void serve_write_row(json_out *o, const serve_rows *rows, size_t i, int base64)
{
    if (rows->floats && base64) {
        json_out_base64_floats(o, rows->floats + i * rows->width, rows->width);
    } else if (rows->floats) {
        json_out_floats(o, rows->floats + i * rows->width, rows->width);
    } else if (base64) {
        json_out_base64(o, (const unsigned char *)rows->bytes + i * rows->width, rows->width);
    } else {
        const int8_t *i8 = rows->bytes;  /* [n, width] for int8 and binary */
        const uint8_t *u8 = rows->bytes; /* [n, width] otherwise */
        json_out_str(o, "[");
        for (size_t k = 0; k < rows->width; k++) {
            const size_t at = i * rows->width + k;
            json_out_printf(o, "%s%d", k ? "," : "",
                            is_signed(rows->precision) ? (int)i8[at] : (int)u8[at]);
        }
        json_out_str(o, "]");
    }
}
