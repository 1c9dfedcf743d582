/* batcher.c — the queue of jobs and the compute thread that packs their
 * inputs into forward calls. */
#define _POSIX_C_SOURCE 200809L
#include "batcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"

/* A call's rows are padded to its longest input in the hidden states
 * ([B, T, D]) though only the real tokens are computed: B x T is kept
 * within this many times max_batch_tokens, which bounds the memory. */
#define SERVE_PADDING_FACTOR 4

/* Input `index` of job, in a forward call. */
typedef struct batch_item {
    serve_job *job;
    size_t index;
} batch_item;

struct serve_batcher {
    const tf_pipeline *p;
    serve_batcher_options o;
    pthread_mutex_t lock;
    pthread_cond_t work;    /* a job was queued, or stopping began */
    pthread_cond_t done;    /* a call returned */
    serve_job *head, *tail; /* jobs with inputs not yet taken, oldest first */
    size_t admitted;        /* jobs queued or running */
    int stopping;
    pthread_t thread;
    /* The compute thread's, for one call: */
    size_t capacity;        /* items a call can hold */
    batch_item *items;      /* [capacity] */
    const char **texts;     /* [capacity] */
    const char **pairs;     /* [capacity] */
    const uint8_t **images; /* [capacity] */
    size_t *image_sizes;    /* [capacity] */
    tf_status *statuses;    /* [capacity] each item's call's */
    char (*messages)[256];  /* [capacity] and its message */
};

/* Jobs whose inputs can share one call. */
static int compatible(const serve_job *a, const serve_job *b)
{
    return a->task == b->task && a->normalize == b->normalize && a->dimensions == b->dimensions &&
        a->dimensions_layer_norm == b->dimensions_layer_norm && !a->pairs == !b->pairs &&
        !a->prompt_name == !b->prompt_name &&
        (!a->prompt_name || strcmp(a->prompt_name, b->prompt_name) == 0);
}

static int is_image_task(serve_task task)
{
    return task == SERVE_TASK_EMBED_IMAGES || task == SERVE_TASK_CLASSIFY_IMAGES;
}

/* Takes inputs for one call, the oldest job's first (under the lock),
 * until the next one would pass the token budget or the padding bound
 * (images: SERVE_IMAGES_PER_CALL); the first input is always taken. Jobs
 * whose inputs are all taken leave the queue. Returns the number of items. */
static size_t gather(serve_batcher *b)
{
    const serve_job *first = b->head;
    const size_t most = is_image_task(first->task) && SERVE_IMAGES_PER_CALL < b->capacity
        ? SERVE_IMAGES_PER_CALL
        : b->capacity;
    size_t B = 0, tokens = 0, longest = 0;
    const size_t budget = b->o.max_batch_tokens;
    int full = 0;
    serve_job *prev = NULL;
    for (serve_job *job = b->head, *next; job && !full; job = next) {
        next = job->next;
        if (!compatible(job, first)) {
            prev = job;
            continue;
        }
        while (job->taken < job->n) {
            const size_t t = (size_t)job->tokens[job->taken];
            const size_t wider = t > longest ? t : longest;
            if (B > 0 &&
                (B == most || tokens + t > budget ||
                 (B + 1) * wider > SERVE_PADDING_FACTOR * budget)) {
                full = 1;
                break;
            }
            if (job->taken == 0)
                job->started_at = serve_clock();
            b->items[B++] = (batch_item){job, job->taken++};
            tokens += t, longest = wider;
        }
        if (job->taken < job->n) {
            prev = job;
            continue;
        }
        if (prev) /* every input taken: out of the queue */
            prev->next = next;
        else
            b->head = next;
        if (b->tail == job)
            b->tail = prev;
    }
    return B;
}

/* One forward call of the images items[first..first+B): results [B, width]
 * into out. A refused image's message names its index in its request. */
static tf_status run_images_call(serve_batcher *b, size_t first, size_t B, float *out)
{
    const serve_job *job = b->items[first].job;
    for (size_t i = 0; i < B; i++) {
        const batch_item *it = &b->items[first + i];
        b->images[i] = it->job->images[it->index];
        b->image_sizes[i] = it->job->image_sizes[it->index];
    }
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = B, a.data = b->images, a.sizes = b->image_sizes;
    a.normalize = job->normalize, a.batch_size = (int32_t)B, a.n_threads = b->o.n_threads;
    a.max_pixels = b->o.max_image_pixels, a.first_index = b->items[first].index;
    a.out = out, a.out_len = B * job->width;
    return job->task == SERVE_TASK_EMBED_IMAGES ? tf_pipeline_embed_images(b->p, &a)
                                                : tf_pipeline_classify_images(b->p, &a);
}

/* One forward call of items[first..first+B): results [B, width] into out. */
static tf_status run_call(serve_batcher *b, size_t first, size_t B, float *out)
{
    const serve_job *job = b->items[first].job;
    if (is_image_task(job->task))
        return run_images_call(b, first, B, out);
    for (size_t i = 0; i < B; i++) {
        const batch_item *it = &b->items[first + i];
        b->texts[i] = it->job->texts[it->index];
        b->pairs[i] = it->job->pairs ? it->job->pairs[it->index] : NULL;
    }
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = B, a.texts = b->texts, a.pairs = job->pairs ? b->pairs : NULL;
    a.prompt_name = job->prompt_name, a.normalize = job->normalize;
    a.dimensions = job->dimensions, a.dimensions_layer_norm = job->dimensions_layer_norm;
    a.batch_size = (int32_t)B;
    a.n_threads = b->o.n_threads, a.out = out, a.out_len = B * job->width;
    switch (job->task) {
    case SERVE_TASK_EMBED:
        return tf_pipeline_embed(b->p, &a);
    case SERVE_TASK_SCORE:
        return tf_pipeline_score(b->p, &a);
    case SERVE_TASK_CLASSIFY:
        return tf_pipeline_classify(b->p, &a);
    case SERVE_TASK_LOGITS:
        return tf_pipeline_logits(b->p, &a);
    case SERVE_TASK_EMBED_IMAGES: /* run_images_call's */
    case SERVE_TASK_CLASSIFY_IMAGES:
        break;
    }
    return TF_ERR_INVALID_ARGUMENT;
}

/* The results of items[0..B) into out [B, width], statuses[i] each item's
 * (messages[i] its tf_last_error): one call, or, when it fails, a call for
 * each item, so that an input that fails (a float32 overflow) fails its
 * own request only. */
static void run_items(serve_batcher *b, size_t B, size_t width, float *out, tf_status *statuses,
                      char (*messages)[256])
{
    tf_status s = run_call(b, 0, B, out);
    for (size_t i = 0; i < B; i++) {
        if (s != TF_OK && B > 1)
            statuses[i] = run_call(b, i, 1, out + i * width);
        else
            statuses[i] = s;
        if (statuses[i] != TF_OK)
            snprintf(messages[i], sizeof messages[i], "%s", tf_last_error());
    }
}

/* The call's results into their jobs (under the lock); a job whose inputs
 * are all back is finished. */
static void deliver(serve_batcher *b, size_t B, const float *out, const tf_status *statuses,
                    const char (*messages)[256])
{
    const double now = serve_clock();
    for (size_t i = 0; i < B; i++) {
        serve_job *job = b->items[i].job;
        if (statuses[i] == TF_OK)
            memcpy(job->out + b->items[i].index * job->width, out + i * job->width,
                   job->width * sizeof *out);
        else if (job->status == TF_OK) {
            job->status = statuses[i];
            snprintf(job->message, sizeof job->message, "%s", messages[i]);
        }
        if (++job->finished == job->n) {
            job->done_at = now;
            b->admitted--;
        }
    }
    pthread_cond_broadcast(&b->done);
}

static void *compute(void *arg)
{
    serve_batcher *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->head && !b->stopping)
            pthread_cond_wait(&b->work, &b->lock);
        if (!b->head)
            break; /* stopping, and every admitted job taken */
        const size_t B = gather(b);
        size_t tokens = 0;
        for (size_t i = 0; i < B; i++)
            tokens += (size_t)b->items[i].job->tokens[b->items[i].index];
        const size_t width = b->items[0].job->width;
        pthread_mutex_unlock(&b->lock);

        const double start = serve_clock();
        float *out = malloc(B * width * sizeof *out); /* [B, width] */
        if (out)
            run_items(b, B, width, out, b->statuses, b->messages);
        for (size_t i = 0; !out && i < B; i++) {
            b->statuses[i] = TF_ERR_OUT_OF_MEMORY;
            snprintf(b->messages[i], sizeof b->messages[i],
                     "out of memory for the results of "
                     "%zu inputs",
                     B);
        }
        if (b->o.on_batch)
            b->o.on_batch(b->o.user, B, tokens, serve_clock() - start);

        pthread_mutex_lock(&b->lock);
        deliver(b, B, out, b->statuses, (const char(*)[256])b->messages);
        free(out);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

static void free_arrays(serve_batcher *b)
{
    free(b->items);
    free(b->texts);
    free(b->pairs);
    free(b->images);
    free(b->image_sizes);
    free(b->statuses);
    free(b->messages);
}

serve_batcher *serve_batcher_start(const tf_pipeline *p, const serve_batcher_options *o)
{
    serve_batcher *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->p = p, b->o = *o;
    /* every input has at least [CLS] and [SEP]; and one over the budget runs alone */
    b->capacity = o->max_batch_tokens / 2 + 1;
    b->items = calloc(b->capacity, sizeof *b->items);
    b->texts = calloc(b->capacity, sizeof *b->texts);
    b->pairs = calloc(b->capacity, sizeof *b->pairs);
    b->images = calloc(b->capacity, sizeof *b->images);
    b->image_sizes = calloc(b->capacity, sizeof *b->image_sizes);
    b->statuses = calloc(b->capacity, sizeof *b->statuses);
    b->messages = calloc(b->capacity, sizeof *b->messages);
    int err = !b->items || !b->texts || !b->pairs || !b->images || !b->image_sizes ||
            !b->statuses || !b->messages
        ? ENOMEM
        : 0;
    if (!err) {
        pthread_mutex_init(&b->lock, NULL);
        pthread_cond_init(&b->work, NULL);
        pthread_cond_init(&b->done, NULL);
        if ((err = pthread_create(&b->thread, NULL, compute, b)) != 0) {
            pthread_mutex_destroy(&b->lock);
            pthread_cond_destroy(&b->work);
            pthread_cond_destroy(&b->done);
        }
    }
    if (err) {
        free_arrays(b);
        free(b);
        errno = err;
        return NULL;
    }
    return b;
}

int serve_batcher_submit(serve_batcher *b, serve_job *job)
{
    job->taken = job->finished = 0, job->status = TF_OK, job->message[0] = '\0';
    job->next = NULL;
    job->queued_at = job->started_at = job->done_at = serve_clock();
    pthread_mutex_lock(&b->lock);
    const int rc = b->stopping ? -2 : b->admitted >= b->o.max_jobs ? -1 : 0;
    if (rc == 0) {
        if (b->tail)
            b->tail->next = job;
        else
            b->head = job;
        b->tail = job;
        b->admitted++;
        pthread_cond_signal(&b->work);
    }
    pthread_mutex_unlock(&b->lock);
    return rc;
}

void serve_batcher_wait(serve_batcher *b, serve_job *job)
{
    pthread_mutex_lock(&b->lock);
    while (job->finished < job->n)
        pthread_cond_wait(&b->done, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

size_t serve_batcher_depth(serve_batcher *b)
{
    pthread_mutex_lock(&b->lock);
    const size_t n = b->admitted;
    pthread_mutex_unlock(&b->lock);
    return n;
}

void serve_batcher_stop(serve_batcher *b)
{
    pthread_mutex_lock(&b->lock);
    b->stopping = 1;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->thread, NULL);
}

void serve_batcher_destroy(serve_batcher *b)
{
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->work);
    pthread_cond_destroy(&b->done);
    free_arrays(b);
    free(b);
}
