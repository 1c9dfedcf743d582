/* embed_sparse.c — `tfenc embed --sparse`: each text's sparse vector as one
 * JSON line {"indices": [...], "values": [...]} (ascending indices; with
 * --decode-tokens also "tokens", each index's vocabulary entry). */
#define _POSIX_C_SOURCE 200809L
#include "embed_sparse.h"

#include <stdio.h>

#include "cli_message.h"
#include "options.h"
#include "out_file.h"
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
    for (int32_t j = 0; j < nnz; j++)
        fprintf(f, "%s%.9g", j ? ", " : "", (double)val[j]);
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

static int write_all(const embed_sparse_options *o, const tf_sparse_vectors *v,
                     const tf_tokenizer *tok)
{
    out_file out;
    if (out_file_open(&out, o->out) != 0) {
        cli_error("embed", "--out %s", out.err);
        return CLI_FAILED;
    }
    for (size_t i = 0; i < tf_sparse_vectors_count(v); i++)
        write_line(out.f, v, i, tok);
    if (out_file_close(&out) != 0) {
        cli_error("embed", "%s%s", o->out ? "--out " : "", out.err);
        return CLI_FAILED;
    }
    return 0;
}

int embed_sparse_run(const embed_sparse_options *o)
{
    const unsigned kinds = PIPELINE_CLI_KIND(TF_PIPELINE_SPARSE) |
        PIPELINE_CLI_KIND(TF_PIPELINE_FILL_MASK);
    tf_pipeline *p = pipeline_cli_load("embed", o->model, o->max_length, kinds);
    if (!p)
        return CLI_FAILED;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    size_t truncated = 0;
    a.n = o->n, a.texts = o->texts, a.truncated = &truncated, a.prompt_name = o->prompt_name;
    a.batch_size = o->batch_size, a.n_threads = o->threads;
    a.is_query = o->is_query, a.max_active_dims = o->max_active_dims;
    tf_sparse_vectors *v = NULL;
    const tf_status s = tf_pipeline_embed_sparse(p, &a, &v);
    int rc = s ? pipeline_cli_fail("embed", s) : 0;
    if (rc == 0) {
        pipeline_cli_truncated("embed", truncated, p);
        rc = write_all(o, v, o->decode_tokens ? tf_pipeline_tokenizer(p) : NULL);
    }
    tf_sparse_vectors_destroy(v);
    tf_pipeline_destroy(p);
    return rc;
}
