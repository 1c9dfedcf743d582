/* embed_job.c — the run and the output of embed's per-text outputs; see
 * embed_job.h. */
#include "embed_job.h"

#include "cli_message.h"
#include "options.h"
#include "out_file.h"
#include "pipeline_cli.h"

tf_pipeline *embed_job_start(const embed_job *j, unsigned kinds, tf_pipeline_args *a,
                             size_t *truncated)
{
    tf_pipeline *p = pipeline_cli_load("embed", j->model, j->max_length, kinds);
    if (!p)
        return NULL;
    tf_pipeline_args_init(a);
    *truncated = 0;
    a->n = j->n, a->texts = j->texts, a->truncated = truncated, a->prompt_name = j->prompt_name;
    a->batch_size = j->batch_size, a->n_threads = j->threads, a->is_query = j->is_query;
    return p;
}

int embed_job_write(const embed_job *j, size_t n, void (*line)(FILE *f, size_t i, void *user),
                    void *user)
{
    out_file out;
    if (out_file_open(&out, j->out) != 0) {
        cli_error("embed", "--out %s", out.err);
        return CLI_FAILED;
    }
    for (size_t i = 0; i < n; i++)
        line(out.f, i, user);
    if (out_file_close(&out) != 0) {
        cli_error("embed", "%s%s", j->out ? "--out " : "", out.err);
        return CLI_FAILED;
    }
    return 0;
}
