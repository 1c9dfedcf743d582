/* embed_sparse.c — `tfenc embed --sparse`: each text's sparse vector as one
 * JSON line {"indices": [...], "values": [...]} (ascending indices; with
 * --decode-tokens also "tokens", each index's vocabulary entry). */
#define _POSIX_C_SOURCE 200809L
#include "embed_sparse.h"

#include <stdio.h>

#include "cli_message.h"
#include "job_output.h"
#include "options.h"
#include "pipeline_cli.h"
#include "tfenc.h"

/* Input i of v as one JSON line on f. */
static void write_line(FILE *f, const tf_sparse_vectors *v, size_t i, const tf_tokenizer *tok)
{
    const int32_t nnz = tf_sparse_vectors_nnz(v, i);
    const int32_t *idx = tf_sparse_vectors_indices(v, i);
    const float *val = tf_sparse_vectors_values(v, i);
    fputs("{\"indices\": [", f);
    for (int32_t j = 0; j < nnz; j++)
        fprintf(f, "%s%d", j ? ", " : "", (int)idx[j]);
    fputs("], \"values\": [", f);
    for (int32_t j = 0; j < nnz; j++) {
        char number[CLI_FLOAT_CHARS];
        fprintf(f, "%s%s", j ? ", " : "", cli_float_text(number, val[j]));
    }
    fputs("]", f);
    if (tok) {
        fputs(", \"tokens\": [", f);
        for (int32_t j = 0; j < nnz; j++) {
            const char *t = tf_tokenizer_id_to_token(tok, idx[j]);
            fputs(j ? ", " : "", f);
            pipeline_cli_json_string(f, t ? t : "");
        }
        fputs("]", f);
    }
    fputs("}\n", f);
}

/* What write_line needs a line. */
typedef struct sparse_lines {
    const tf_sparse_vectors *v;
    const tf_tokenizer *tok; /* --decode-tokens, else NULL */
} sparse_lines;

static void line_of(FILE *f, size_t i, void *user)
{
    const sparse_lines *l = user;
    write_line(f, l->v, i, l->tok);
}

int embed_sparse_run(const embed_sparse_options *o)
{
    const unsigned kinds = PIPELINE_CLI_KIND(TF_PIPELINE_SPARSE) |
        PIPELINE_CLI_KIND(TF_PIPELINE_FILL_MASK);
    tf_pipeline_args a;
    size_t truncated;
    tf_pipeline *p = embed_job_start(&o->job, kinds, &a, &truncated);
    if (!p)
        return CLI_FAILED;
    a.max_active_dims = o->max_active_dims;
    tf_sparse_vectors *v = NULL;
    const tf_status s = tf_pipeline_embed_sparse(p, &a, &v);
    int rc = s ? pipeline_cli_fail("embed", s) : 0;
    if (rc == 0) {
        pipeline_cli_truncated("embed", truncated, p);
        sparse_lines l = {v, o->decode_tokens ? tf_pipeline_tokenizer(p) : NULL};
        rc = embed_job_write(&o->job, tf_sparse_vectors_count(v), line_of, &l);
    }
    tf_sparse_vectors_destroy(v);
    tf_pipeline_destroy(p);
    return rc;
}
