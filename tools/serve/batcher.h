/* batcher.h — the queue and the one compute thread: requests (jobs) wait
 * in arrival order; the thread packs the inputs of jobs that can share a
 * forward call (the same task and parameters) into one call of at most
 * max_batch_tokens real tokens (tf_pipeline_embed and the heads pack rows
 * padding-free: a call costs its real tokens), taking the oldest job's
 * inputs first so that no input waits behind later ones for ever (images:
 * at most SERVE_IMAGES_PER_CALL a call, decoded on this thread). At most
 * max_jobs jobs are admitted at once (queued or running): beyond that
 * serve_batcher_submit refuses, and the client gets 429. */
#ifndef SERVE_BATCHER_H
#define SERVE_BATCHER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

typedef enum serve_task {
    SERVE_TASK_EMBED,          /* tf_pipeline_embed */
    SERVE_TASK_SCORE,          /* tf_pipeline_score */
    SERVE_TASK_CLASSIFY,       /* tf_pipeline_classify */
    SERVE_TASK_LOGITS,         /* tf_pipeline_logits */
    SERVE_TASK_EMBED_IMAGES,   /* tf_pipeline_embed_images */
    SERVE_TASK_CLASSIFY_IMAGES /* tf_pipeline_classify_images */
} serve_task;

/* The images a forward call packs at most (tf_image_args.batch_size's
 * default): an image's tokens are its model's, not the request's, so
 * max_batch_tokens does not bound them. */
#define SERVE_IMAGES_PER_CALL 32

/* One request's inputs and results. The submitter fills the first block
 * and keeps every array alive until serve_batcher_wait returns. */
typedef struct serve_job {
    serve_task task;
    const char *prompt_name; /* embed: as tf_pipeline_args' */
    int32_t normalize, dimensions, dimensions_layer_norm;
    size_t n;                 /* inputs */
    const char *const *texts; /* [n] */
    const char *const *pairs; /* [n] or NULL */
    /* The image tasks' inputs (texts NULL): each image's encoded bytes (a file's). */
    const uint8_t *const *images; /* [n] */
    const size_t *image_sizes;    /* [n] */
    const int32_t *tokens;        /* [n] each input's tokens as the forward runs it (an
                                     image's: 0) */
    float *out;                   /* [n, width]: the results */
    size_t width;

    /* The batcher's. */
    size_t taken;                          /* inputs handed to a forward call */
    size_t finished;                       /* inputs whose call has returned */
    tf_status status;                      /* the first failed call's */
    char message[256];                     /* its tf_last_error */
    double queued_at, started_at, done_at; /* seconds (CLOCK_MONOTONIC) */
    struct serve_job *next;                /* the queue's */
} serve_job;

/* What one forward call was, for the metrics. */
typedef void serve_batch_fn(void *user, size_t inputs, size_t tokens, double seconds);

typedef struct serve_batcher_options {
    size_t max_batch_tokens;  /* an input of more tokens runs alone */
    size_t max_jobs;          /* --max-concurrent */
    int32_t n_threads;        /* the forward's threads (tf_forward_args.n_threads) */
    int64_t max_image_pixels; /* an image's height x width at most (tf_image_args') */
    serve_batch_fn *on_batch;
    void *user;
} serve_batcher_options;

typedef struct serve_batcher serve_batcher;

/* Starts the compute thread; NULL (with errno) on failure. */
serve_batcher *serve_batcher_start(const tf_pipeline *p, const serve_batcher_options *o);
/* Queues job: 0; -1 when max_jobs are admitted; -2 once stopping. */
int serve_batcher_submit(serve_batcher *b, serve_job *job);
/* Blocks until every input of job has its result (or its call failed). */
void serve_batcher_wait(serve_batcher *b, serve_job *job);
/* Jobs admitted and not yet finished. */
size_t serve_batcher_depth(serve_batcher *b);
/* Refuses new jobs (submit returns -2 from then on), finishes those admitted
 * and joins the thread; b stays valid for the HTTP threads still running. */
void serve_batcher_stop(serve_batcher *b);
/* Frees a stopped b, once no thread can call it any more. */
void serve_batcher_destroy(serve_batcher *b);

#endif
