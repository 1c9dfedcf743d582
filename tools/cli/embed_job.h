/* embed_job.h — what `tfenc embed`'s per-text outputs (--sparse,
 * --multi-vector: one JSON line a text) share: the texts and the run's
 * settings, the pipeline loaded and its call's arguments, and the lines
 * written on stdout or in --out (replaced whole). embed.c fills it from the
 * command line. */
#ifndef TFENC_EMBED_JOB_H
#define TFENC_EMBED_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tfenc.h"

typedef struct embed_job {
    const char *model;        /* the folder */
    const char *const *texts; /* [n] */
    size_t n;
    const char *prompt_name; /* --prompt-name, or NULL */
    int32_t batch_size;      /* texts per forward call */
    int32_t threads;         /* 0: one per core */
    int32_t max_length;      /* --max-length, 0: the folder's */
    int32_t is_query;        /* --query: a Router's query route, PyLate's queries */
    const char *out;         /* --out FILE, NULL: stdout */
} embed_job;

/* The folder loaded as one of kinds (PIPELINE_CLI_KIND bits), and *a its
 * call's arguments from j (*truncated counts the texts cut); NULL after a
 * message. */
tf_pipeline *embed_job_start(const embed_job *j, unsigned kinds, tf_pipeline_args *a,
                             size_t *truncated);

/* line(f, i, user) for i in 0..n, on stdout or in j->out: 0, or CLI_FAILED
 * after a message (--out then as it was). */
int embed_job_write(const embed_job *j, size_t n, void (*line)(FILE *f, size_t i, void *user),
                    void *user);

#endif
