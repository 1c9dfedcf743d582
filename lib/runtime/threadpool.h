/* threadpool.h — the library's own threads: one pool per process, started
 * by the first call that wants more than one thread, kept for the life of
 * the process. Between the steps of a call a thread that ran out of work
 * waits for the next by spinning up to TF_POOL_SPIN_NS, then asleep on a
 * condition variable: on a virtual machine a sleeping core takes tens of
 * microseconds to wake, which a forward call's steps (dozens per layer at
 * short sequences) would pay each time.
 *
 * One call at a time holds the pool (tf__pool_claim); a call that finds it
 * held by another runs on its own thread alone, so that concurrent calls
 * from many threads never put more threads on the cores than there are
 * cores. In a child process forked after the pool started, the pool is
 * never used (its threads do not exist there; and starting threads in such
 * a child is what ThreadSanitizer and some C libraries refuse): every call
 * there runs on the caller's thread. A job's workers may run on every core
 * they were started with except the calling thread's (placement.h says
 * why); the caller's own cores are never changed. */
#ifndef TF_THREADPOOL_H
#define TF_THREADPOOL_H

#include <stddef.h>

/* Nanoseconds a thread out of work spins before it sleeps. */
#define TF_POOL_SPIN_NS 50000

/* Most threads a call may use (the caller's included). */
#define TF_POOL_MAX_THREADS 32

/* The online cores (sysconf), between 1 and TF_POOL_MAX_THREADS; read once. */
int tf__pool_width(void);

/* 1 in a child process forked after the pool started, else 0. */
int tf__pool_forked(void);

/* task of n_tasks, run on thread 0 (the caller) .. threads - 1. */
typedef void (*tf__task_fn)(void *ctx, size_t task, int thread);

/* Claims the pool for up to `wanted` threads, the caller's included;
 * returns how many the call got: 1 (the caller alone) when wanted <= 1, the
 * pool is held by another call, this is a forked child, or no thread could
 * be started. A claim of more than 1 must be given back with
 * tf__pool_release. Allocates only when it starts the pool. */
int tf__pool_claim(int wanted);
void tf__pool_release(int claimed);

/* Runs fn(ctx, t, thread) for every t in [0, n_tasks) on `threads` threads
 * (as claimed; 1 = here, in order) and returns when all are done. Tasks are
 * handed out in order, one at a time, to whichever thread is free; a
 * worker that wakes after the last was handed out is not waited for (on a
 * busy machine the caller does not wait for a thread the system has not
 * run yet). `thread` is unique among the threads running the job. */
void tf__pool_run(int threads, tf__task_fn fn, void *ctx, size_t n_tasks);

#endif
