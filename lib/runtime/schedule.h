/* schedule.h — how one forward call spreads over threads.
 *
 * Every step of a layer is a set of independent tasks, and the tasks are
 * the same for any thread count: a projection is column blocks, each its
 * own cblas_sgemm, as many as the machine's tf__pool_width() (not the call's
 * thread count); attention is one task per
 * (sequence, head, block of query rows); row-wise loops are blocks of rows.
 * OpenBLAS's result for an output element depends on the shape of the call
 * that computes it (measured: a column or row block of a product differs in
 * the last bits from the same block inside the whole product), so fixing
 * the tasks is what makes the result bitwise the same for any n_threads.
 *
 * While any forward call runs, the BLAS runs each call on one thread (the
 * rule in tfenc.h's Threads paragraph), and at most TF_BLAS_MAX_THREADS of
 * the library's threads are inside BLAS-using work at once. */
#ifndef TF_SCHEDULE_H
#define TF_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "threadpool.h"

/* Library threads inside BLAS-using work at once: OpenBLAS 0.3.21 keeps a
 * fixed table of buffers, one per thread inside a call (64 in Debian's
 * build, some held by its own threads); past it, it prints and crashes. */
#define TF_BLAS_MAX_THREADS 32

typedef struct tf__schedule {
    int threads; /* this call's threads, the caller's included */
    int width;   /* tf__pool_width(): how many parts a step is split into */
} tf__schedule;

/* Starts a forward call's work on at most n_threads threads (0: width):
 * waits while TF_BLAS_MAX_THREADS library threads are inside the BLAS,
 * holds the BLAS at one thread, claims the pool. Allocates only when it
 * starts the pool. */
void tf__schedule_begin(tf__schedule *s, int32_t n_threads);
/* Ends it: gives back the pool, the BLAS slots and (for the last call
 * running) the BLAS's thread count. */
void tf__schedule_end(tf__schedule *s);

/* fn(ctx, t, thread) for every task t of n_tasks, on s->threads threads,
 * or on the caller's alone while other forward calls run; thread indexes
 * per-thread scratch (0 .. s->width - 1). */
void tf__schedule_run(const tf__schedule *s, tf__task_fn fn, void *ctx, size_t n_tasks);

/* Values a row-wise task gets at least: below this, handing a part to
 * another thread (about a microsecond while it spins, TF_POOL_SPIN_NS)
 * costs more than the loop. */
#define TF_ROW_TASK_MIN_VALUES ((size_t)1 << 13)

/* fn(ctx, first, count) over rows [0, n) of row_values values each, cut
 * into one part per thread (fewer where a part would get under
 * TF_ROW_TASK_MIN_VALUES values). Only for row-wise loops, whose values do
 * not depend on the cut. */
typedef void (*tf__rows_fn)(void *ctx, size_t first, size_t count);
void tf__schedule_rows(const tf__schedule *s, tf__rows_fn fn, void *ctx, size_t n,
                       size_t row_values);

/* Part `part` of n items cut into `parts` nearly equal ranges whose
 * starts are multiples of `align` (the last takes the rest): [*first,
 * *first + *count). */
void tf__split_range(size_t n, size_t parts, size_t align, size_t part, size_t *first,
                     size_t *count);

#endif
