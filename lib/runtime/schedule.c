/* schedule.c — a forward call's threads, the BLAS's thread count while
 * calls run, and the bound on library threads inside the BLAS. */
#define _POSIX_C_SOURCE 200809L
#include "schedule.h"

#include <pthread.h>
#include <stdatomic.h>

#include "blas.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t freed; /* BLAS slots were given back */
    int in_blas;          /* library threads inside BLAS-using work */
    int calls;            /* forward calls running */
    int saved;            /* the BLAS's thread count before the first of them; 0: left alone */
} gate = {.lock = PTHREAD_MUTEX_INITIALIZER, .freed = PTHREAD_COND_INITIALIZER};

/* gate.calls, for each step to read without the lock. */
static atomic_int calls_running;

/* Under gate.lock: the first running call holds the BLAS at one thread.
 * Not in a child forked while a call held the pool (one that must not start
 * threads, which OpenBLAS does to change its count after a fork): there
 * the count stays as the fork left it. */
static void hold_blas(void)
{
    atomic_store(&calls_running, ++gate.calls);
    if (gate.calls > 1 || tf__pool_forked())
        return;
    const int n = tf__blas_threads();
    gate.saved = n > 1 ? n : 0;
    if (gate.saved)
        tf__blas_set_threads(1);
}

/* Under gate.lock: the last call puts the count back, unless the host set
 * another one meanwhile. */
static void unhold_blas(void)
{
    atomic_store(&calls_running, --gate.calls);
    if (gate.calls > 0 || !gate.saved)
        return;
    if (tf__blas_threads() == 1)
        tf__blas_set_threads(gate.saved);
    gate.saved = 0;
}

/* fork() while another thread holds gate.lock would leave it held in the
 * child: it is taken around fork. The calls running then do not run in the
 * child. */
static void lock_gate(void)
{
    pthread_mutex_lock(&gate.lock);
}
static void unlock_gate(void)
{
    pthread_mutex_unlock(&gate.lock);
}
static void reset_gate(void)
{
    gate.in_blas = gate.calls = gate.saved = 0;
    atomic_store(&calls_running, 0);
    pthread_mutex_unlock(&gate.lock);
}
static void register_fork_handlers(void)
{
    pthread_atfork(lock_gate, unlock_gate, reset_gate);
}

void tf__schedule_begin(tf__schedule *s, int32_t n_threads)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handlers);
    s->width = tf__pool_width();
    const int wanted = n_threads <= 0 || n_threads > s->width ? s->width : (int)n_threads;
    pthread_mutex_lock(&gate.lock);
    while (gate.in_blas >= TF_BLAS_MAX_THREADS)
        pthread_cond_wait(&gate.freed, &gate.lock);
    const int room = TF_BLAS_MAX_THREADS - gate.in_blas; /* >= 1 */
    const int asked = wanted < room ? wanted : room;
    gate.in_blas += asked;
    hold_blas();
    pthread_mutex_unlock(&gate.lock);
    s->threads = tf__pool_claim(asked);
    if (s->threads < asked) { /* slots the pool could not fill */
        pthread_mutex_lock(&gate.lock);
        gate.in_blas -= asked - s->threads;
        pthread_cond_broadcast(&gate.freed);
        pthread_mutex_unlock(&gate.lock);
    }
}

void tf__schedule_end(tf__schedule *s)
{
    tf__pool_release(s->threads);
    pthread_mutex_lock(&gate.lock);
    gate.in_blas -= s->threads;
    unhold_blas();
    pthread_cond_broadcast(&gate.freed);
    pthread_mutex_unlock(&gate.lock);
}

void tf__schedule_run(const tf__schedule *s, tf__task_fn fn, void *ctx, size_t n_tasks)
{
    /* While other calls run, their callers' threads occupy cores too: the
     * step stays on this caller's thread, so that the threads on the cores
     * are no more than the callers' (the pool's come back when they end). */
    tf__pool_run(atomic_load(&calls_running) > 1 ? 1 : s->threads, fn, ctx, n_tasks);
}

typedef struct rows_job {
    tf__rows_fn fn;
    void *ctx;
    size_t n, parts;
} rows_job;

static void rows_task(void *ctx, size_t part, int thread)
{
    const rows_job *j = ctx;
    size_t first, count;
    tf__split_range(j->n, j->parts, 1, part, &first, &count);
    if (count)
        j->fn(j->ctx, first, count);
}

void tf__schedule_rows(const tf__schedule *s, tf__rows_fn fn, void *ctx, size_t n,
                       size_t row_values)
{
    const size_t most = n * row_values / TF_ROW_TASK_MIN_VALUES; /* parts of at least that */
    rows_job job = {fn, ctx, n,
                    most < 1                        ? 1
                        : most < (size_t)s->threads ? most
                                                    : (size_t)s->threads};
    tf__schedule_run(s, rows_task, &job, job.parts);
}

void tf__split_range(size_t n, size_t parts, size_t align, size_t part, size_t *first,
                     size_t *count)
{
    const size_t units = (n + align - 1) / align; /* whole aligned units */
    const size_t begin = units * part / parts * align, end = units * (part + 1) / parts * align;
    *first = begin < n ? begin : n;
    *count = (end < n ? end : n) - *first;
}
