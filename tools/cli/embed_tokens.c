/* embed_tokens.c — `tfenc embed --multi-vector`: each text's token vectors
 * as one JSON line {"rows": R, "dim": D, "vectors": [[...], ...]} (R rows
 * of D values, each read back as the same float32). */
#define _POSIX_C_SOURCE 200809L
#include "embed_tokens.h"

#include <stdio.h>

#include "cli_message.h"
#include "options.h"
#include "pipeline_cli.h"
#include "tfenc.h"

/* Input i of v as one JSON line on f. */
static void write_line(FILE *f, const tf_token_vectors *v, size_t i)
{
    const int32_t rows = tf_token_vectors_rows(v, i), dim = tf_token_vectors_dim(v);
    const float *data = tf_token_vectors_data(v, i); /* [rows, dim] */
    fprintf(f, "{\"rows\": %d, \"dim\": %d, \"vectors\": [", (int)rows, (int)dim);
    for (int32_t r = 0; r < rows; r++) {
        fputs(r ? ", [" : "[", f);
        for (int32_t c = 0; c < dim; c++)
            fprintf(f, "%s%.9g", c ? ", " : "", (double)data[(size_t)r * (size_t)dim + (size_t)c]);
        fputs("]", f);
    }
    fputs("]}\n", f);
}

static int write_all(const embed_tokens_options *o, const tf_token_vectors *v)
{
    FILE *f = o->out ? fopen(o->out, "w") : stdout;
    if (!f) {
        cli_error("embed", "--out %s: cannot open it for writing", o->out);
        return CLI_FAILED;
    }
    for (size_t i = 0; i < tf_token_vectors_count(v); i++)
        write_line(f, v, i);
    const int failed = ferror(f) | (o->out ? fclose(f) != 0 : fflush(f) != 0);
    if (failed)
        cli_error("embed", "%s: writing failed", o->out ? o->out : "standard output");
    return failed ? CLI_FAILED : 0;
}

int embed_tokens_run(const embed_tokens_options *o)
{
    const unsigned kinds = PIPELINE_CLI_KIND(TF_PIPELINE_MULTI_VECTOR) |
        PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING);
    tf_pipeline *p = pipeline_cli_load("embed", o->model, o->max_length, kinds);
    if (!p)
        return CLI_FAILED;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    size_t truncated = 0;
    a.n = o->n, a.texts = o->texts, a.truncated = &truncated, a.prompt_name = o->prompt_name;
    a.batch_size = o->batch_size, a.n_threads = o->threads;
    a.is_query = o->is_query, a.normalize = o->normalize ? 1 : -1;
    tf_token_vectors *v = NULL;
    const tf_status s = tf_pipeline_embed_tokens(p, &a, &v);
    int rc = s ? pipeline_cli_fail("embed", s) : 0;
    if (rc == 0) {
        pipeline_cli_truncated("embed", truncated, p);
        rc = write_all(o, v);
    }
    tf_token_vectors_destroy(v);
    tf_pipeline_destroy(p);
    return rc;
}
