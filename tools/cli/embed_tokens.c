/* embed_tokens.c — `tfenc embed --multi-vector`: each text's token vectors
 * as one JSON line {"rows": R, "dim": D, "vectors": [[...], ...]} (R rows
 * of D values, each read back as the same float32); with --precision the
 * rows of every text quantized together (cli_quantize: int8 / uint8 ranges
 * from --calibration, else from all the texts' rows), the line with
 * "precision" after "dim" and rows of integers (D, or ceil(D / 8) bytes of
 * bits). */
#define _POSIX_C_SOURCE 200809L
#include "embed_tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_message.h"
#include "options.h"
#include "pipeline_cli.h"
#include "quantize_cli.h"
#include "tfenc.h"

/* Every input's rows of v, one after another: *all [total, dim] (owned)
 * and *total; 0, or CLI_FAILED after a message. */
static int gather_rows(const tf_token_vectors *v, float **all, size_t *total)
{
    const size_t dim = (size_t)tf_token_vectors_dim(v);
    *total = 0;
    for (size_t i = 0; i < tf_token_vectors_count(v); i++)
        *total += (size_t)tf_token_vectors_rows(v, i);
    if (!(*all = malloc(*total * dim * sizeof **all + 1))) {
        cli_error("embed", "out of memory");
        return CLI_FAILED;
    }
    for (size_t i = 0, at = 0; i < tf_token_vectors_count(v); i++) {
        const size_t values = (size_t)tf_token_vectors_rows(v, i) * dim;
        memcpy(*all + at, tf_token_vectors_data(v, i), values * sizeof **all);
        at += values;
    }
    return 0;
}

/* Rows first..first + n of rows (a text's R rows of D values) as one JSON line on f. */
static void write_line(FILE *f, const cli_rows *rows, size_t first, size_t n, int32_t D)
{
    char number[CLI_FLOAT_CHARS];
    fprintf(f, "{\"rows\": %zu, \"dim\": %d, ", n, (int)D);
    if (rows->precision != TF_PRECISION_FLOAT32)
        fprintf(f, "\"precision\": \"%s\", ", tf_precision_name(rows->precision));
    fputs("\"vectors\": [", f);
    for (size_t r = first; r < first + n; r++) {
        fputs(r > first ? ", [" : "[", f);
        for (size_t k = 0; k < rows->width; k++)
            fprintf(f, "%s%s", k ? ", " : "", cli_row_value_text(number, rows, r, k));
        fputs("]", f);
    }
    fputs("]}\n", f);
}

/* What write_line needs a line: the next text's rows start at first. */
typedef struct token_lines {
    const tf_token_vectors *v;
    const cli_rows *rows;
    size_t first;
} token_lines;

static void line_of(FILE *f, size_t i, void *user)
{
    token_lines *l = user;
    const size_t n = (size_t)tf_token_vectors_rows(l->v, i);
    write_line(f, l->rows, l->first, n, tf_token_vectors_dim(l->v));
    l->first += n;
}

/* v's rows in --precision, written: 0, or CLI_FAILED after a message. */
static int quantize_and_write(const embed_tokens_options *o, const tf_token_vectors *v)
{
    float *all = NULL; /* [total, dim]: every input's rows */
    size_t total;
    cli_rows rows;
    int rc = gather_rows(v, &all, &total);
    if (rc == 0)
        rc = cli_quantize("embed", o->precision, o->calibration, all, total,
                          tf_token_vectors_dim(v), &rows);
    if (rc == 0) {
        token_lines l = {v, &rows, 0};
        rc = embed_job_write(&o->job, tf_token_vectors_count(v), line_of, &l);
        cli_rows_free(&rows);
    }
    free(all);
    return rc;
}

int embed_tokens_run(const embed_tokens_options *o)
{
    const unsigned kinds = PIPELINE_CLI_KIND(TF_PIPELINE_MULTI_VECTOR) |
        PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING);
    tf_pipeline_args a;
    size_t truncated;
    tf_pipeline *p = embed_job_start(&o->job, kinds, &a, &truncated);
    if (!p)
        return CLI_FAILED;
    a.normalize = o->normalize ? 1 : -1;
    tf_token_vectors *v = NULL;
    const tf_status s = tf_pipeline_embed_tokens(p, &a, &v);
    int rc = s ? pipeline_cli_fail("embed", s) : 0;
    if (rc == 0) {
        pipeline_cli_truncated("embed", truncated, p);
        rc = quantize_and_write(o, v);
    }
    tf_token_vectors_destroy(v);
    tf_pipeline_destroy(p);
    return rc;
}
