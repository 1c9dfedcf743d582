/* threadpool.c — the process's worker threads (threadpool.h). */
#define _POSIX_C_SOURCE 200809L
#include "threadpool.h"

#include "placement.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t owner; /* held by the call that claimed the pool */
    pthread_mutex_t lock;  /* guards the fields below, except `next` */
    pthread_cond_t wake;   /* a new job (or stop) for the workers */
    pthread_cond_t done;   /* the last worker finished its part of a job */
    int started;
    atomic_int stopped;      /* the workers are to leave (written under lock) */
    int workers;             /* threads 1 .. workers exist */
    int paused_for_fork;     /* fork's prepare stopped the workers */
    atomic_ulong generation; /* jobs handed out so far (written under lock) */
    unsigned long first;     /* generation when the workers started */
    int open;                /* the current job still takes workers */
    atomic_int joined;       /* workers that took part, not yet done (written
                                   under lock) */
    int seats;               /* workers it may still take */
    tf__task_fn fn;          /* the current job */
    void *ctx;
    size_t n_tasks;
    int threads;        /* threads 0 .. threads - 1 take part */
    atomic_size_t next; /* the next task to hand out */
    pthread_t ids[TF_POOL_MAX_THREADS];
    int kept_off; /* the core the workers are kept off (-1: none) */
} pool = {.owner = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

/* The process whose pool runs (0: none runs): a child forked while a call
 * held the pool has no workers and never starts any. */
static atomic_long started_by;

int tf__pool_width(void)
{
    static atomic_int width;
    int w = atomic_load(&width);
    if (w == 0) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        w = cores < 1 ? 1 : cores > TF_POOL_MAX_THREADS ? TF_POOL_MAX_THREADS : (int)cores;
        atomic_store(&width, w);
    }
    return w;
}

/* Nanoseconds of CLOCK_MONOTONIC. */
static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits up to TF_POOL_SPIN_NS, without the lock, until done(): 1 if it
 * came, 0 if the time ran out (then the caller sleeps on a condition
 * variable). */
static int spin_until(int (*done)(const void *), const void *arg)
{
    const uint64_t until = now_ns() + TF_POOL_SPIN_NS;
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (done(arg))
                return 1;
            cpu_relax();
        }
        if (now_ns() >= until)
            return done(arg);
    }
}

static int job_after(const void *seen)
{
    return atomic_load_explicit(&pool.generation, memory_order_acquire) !=
        *(const unsigned long *)seen ||
        atomic_load_explicit(&pool.stopped, memory_order_relaxed);
}

static int workers_done(const void *unused)
{
    (void)unused;
    return atomic_load_explicit(&pool.joined, memory_order_acquire) == 0;
}

/* Hands out tasks of the current job until none are left. */
static void run_tasks(int thread)
{
    size_t t;
    while ((t = atomic_fetch_add(&pool.next, 1)) < pool.n_tasks)
        pool.fn(pool.ctx, t, thread);
}

static void *worker_main(void *unused)
{
    unsigned long seen = pool.first; /* written before the workers start */
    for (;;) {
        spin_until(job_after, &seen); /* a step follows another within microseconds */
        pthread_mutex_lock(&pool.lock);
        while (pool.generation == seen && !pool.stopped)
            pthread_cond_wait(&pool.wake, &pool.lock);
        if (pool.generation == seen) { /* stopped, no job left */
            pthread_mutex_unlock(&pool.lock);
            return NULL;
        }
        seen = pool.generation;
        /* A worker that wakes after the caller ran out of tasks, or finds
         * the job full, goes back to waiting: no one waits for it. */
        if (!pool.open || pool.seats == 0) {
            pthread_mutex_unlock(&pool.lock);
            continue;
        }
        const int seat = pool.threads - pool.seats--; /* 1 .. threads - 1 */
        pool.joined++;
        pthread_mutex_unlock(&pool.lock);
        run_tasks(seat);
        pthread_mutex_lock(&pool.lock);
        if (--pool.joined == 0 && !pool.open)
            pthread_cond_signal(&pool.done);
        pthread_mutex_unlock(&pool.lock);
    }
}

/* Makes the workers leave and joins them; the pool can start again. The
 * caller holds pool.owner, so no job is running. */
static void stop_workers(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.stopped = 1;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 1; i <= pool.workers; i++)
        pthread_join(pool.ids[i], NULL);
    pthread_mutex_lock(&pool.lock);
    pool.started = pool.workers = 0;
    pool.stopped = 0;
    pthread_mutex_unlock(&pool.lock);
    atomic_store(&started_by, 0);
}

/* fork(): the workers stop before it, unless a call holds the pool (then
 * the child never uses the pool), and start again when next wanted, in the
 * parent and in the child alike. So a child is forked from a process
 * without the library's threads, and may start threads of its own. */
static void before_fork(void)
{
    pool.paused_for_fork = atomic_load(&started_by) != 0 && !pthread_mutex_trylock(&pool.owner);
    if (pool.paused_for_fork)
        stop_workers();
}

static void after_fork(void)
{
    if (pool.paused_for_fork)
        pthread_mutex_unlock(&pool.owner);
    pool.paused_for_fork = 0;
}

static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork, after_fork);
}

/* Starts threads 1 .. width - 1 (as many as the system allows), with every
 * signal blocked: signals stay with the host's threads. Under pool.lock. */
static void start_workers(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handlers);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pool.first = pool.generation;
    pool.kept_off = -1; /* the workers start with the starting thread's cores */
    tf__cpu_note_cores();
    for (int i = 1; i < tf__pool_width(); i++) {
        if (pthread_create(&pool.ids[i], NULL, worker_main, NULL))
            break;
        pool.workers = i;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool.started = 1;
    atomic_store(&started_by, (long)getpid());
}

int tf__pool_forked(void)
{
    const long by = atomic_load(&started_by);
    return by != 0 && by != (long)getpid();
}

int tf__pool_claim(int wanted)
{
    if (wanted <= 1 || tf__pool_forked())
        return 1;
    if (pthread_mutex_trylock(&pool.owner))
        return 1; /* another call has it */
    pthread_mutex_lock(&pool.lock);
    if (!pool.started)
        start_workers();
    const int available = pool.workers + 1;
    pthread_mutex_unlock(&pool.lock);
    const int got = wanted < available ? wanted : available;
    if (got == 1)
        pthread_mutex_unlock(&pool.owner);
    return got;
}

void tf__pool_release(int claimed)
{
    if (claimed > 1)
        pthread_mutex_unlock(&pool.owner);
}

void tf__pool_run(int threads, tf__task_fn fn, void *ctx, size_t n_tasks)
{
    if ((size_t)threads > n_tasks)
        threads = (int)n_tasks;
    if (threads <= 1) {
        for (size_t t = 0; t < n_tasks; t++)
            fn(ctx, t, 0);
        return;
    }
    const int cpu = tf__cpu_now();
    if (cpu != pool.kept_off) { /* only the holder of pool.owner writes it */
        tf__cpu_keep_off(pool.ids + 1, pool.workers, cpu);
        pool.kept_off = cpu;
    }
    pthread_mutex_lock(&pool.lock);
    pool.fn = fn, pool.ctx = ctx, pool.n_tasks = n_tasks, pool.threads = threads;
    atomic_store(&pool.next, 0);
    pool.open = 1, pool.seats = threads - 1;
    pool.generation++;
    pthread_cond_broadcast(&pool.wake);
    pthread_mutex_unlock(&pool.lock);
    run_tasks(0);
    pthread_mutex_lock(&pool.lock);
    pool.open = 0; /* every task is handed out: wait only for those running one */
    pthread_mutex_unlock(&pool.lock);
    spin_until(workers_done, NULL); /* the others' last tasks end about when ours does */
    pthread_mutex_lock(&pool.lock);
    while (pool.joined > 0)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

/* When the library is unloaded (or the process exits): the workers leave
 * and are joined, unless a call still holds the pool or this is a forked
 * child (whose workers never existed). */
__attribute__((destructor)) static void stop_at_exit(void)
{
    if (atomic_load(&started_by) != (long)getpid() || pthread_mutex_trylock(&pool.owner))
        return;
    stop_workers();
    pthread_mutex_unlock(&pool.owner);
}
