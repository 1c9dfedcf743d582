/* test_schedule.c — the library's threads (runtime/threadpool.c) and a
 * forward call's schedule (runtime/schedule.c): ranges cut without gap or
 * overlap, a claimed pool really runs two tasks at once, a held pool is
 * not shared, a job's workers run off the caller's core (and the caller's
 * own cores are left alone), and the BLAS's thread count is 1 while calls
 * run and what the host set after the last one. */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <sched.h>

#include "common/blas_threads.h"
#include "common/suite.h"
#include "schedule.h"
#include "threadpool.h"
#include "workspace.h"

/* {n, parts, align} */
static const size_t cuts[][3] = {{0, 1, 1},    {1, 4, 1},     {10, 3, 1}, {768, 2, 16},
                                 {100, 3, 16}, {2304, 7, 16}, {5, 5, 16}, {4096, 32, 16}};

START_TEST(test_split_range_covers_once)
{
    const size_t n = cuts[_i][0], parts = cuts[_i][1], align = cuts[_i][2];
    size_t next = 0;
    for (size_t p = 0; p < parts; p++) {
        size_t first, count;
        tf__split_range(n, parts, align, p, &first, &count);
        ck_assert_uint_eq(first, next); /* contiguous, in order */
        ck_assert(first % align == 0 || count == 0);
        next = first + count;
    }
    ck_assert_uint_eq(next, n);
}
END_TEST

/* Tasks 0 and 1 each wait for the other: they finish only if two threads
 * run them at once. */
typedef struct meeting {
    pthread_barrier_t both;
    int ran_on[2];
} meeting;

static void meet(void *ctx, size_t task, int thread)
{
    meeting *m = ctx;
    m->ran_on[task] = thread;
    pthread_barrier_wait(&m->both);
}

START_TEST(test_claimed_pool_runs_tasks_at_once)
{
    if (tf__pool_width() < 2)
        return; /* one core: nothing to run at once */
    const int threads = tf__pool_claim(2);
    ck_assert_int_eq(threads, 2);
    ck_assert_int_eq(tf__pool_claim(2), 1); /* held: a second call runs alone */
    meeting m;
    pthread_barrier_init(&m.both, NULL, 2);
    tf__pool_run(threads, meet, &m, 2);
    pthread_barrier_destroy(&m.both);
    ck_assert_int_ne(m.ran_on[0], m.ran_on[1]);
    tf__pool_release(threads);
    ck_assert_int_eq(tf__pool_claim(2), 2); /* given back */
    tf__pool_release(2);
}
END_TEST

/* Where tasks 0 and 1 of a meeting ran: each thread's core and whether
 * its allowed cores include the caller's. */
typedef struct placed {
    pthread_barrier_t both;
    int caller_cpu;
    int cpu[2];
    int may_use_caller_cpu[2];
} placed;

static void place(void *ctx, size_t task, int thread)
{
    placed *p = ctx;
    cpu_set_t mine;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    p->cpu[thread] = sched_getcpu();
    p->may_use_caller_cpu[thread] = CPU_ISSET(p->caller_cpu, &mine);
    (void)task;
    pthread_barrier_wait(&p->both);
}

START_TEST(test_workers_run_off_the_callers_core)
{
    cpu_set_t all, one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2 || tf__pool_width() < 2)
        return;                            /* one core: nowhere else to run */
    const int threads = tf__pool_claim(2); /* starts the workers, on every core */
    ck_assert_int_eq(threads, 2);
    placed p = {.caller_cpu = sched_getcpu()};
    CPU_ZERO(&one);
    CPU_SET(p.caller_cpu, &one);
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0); /* the caller stays put */
    pthread_barrier_init(&p.both, NULL, 2);
    tf__pool_run(threads, place, &p, 2);
    pthread_barrier_destroy(&p.both);
    tf__pool_release(threads);

    cpu_set_t after;
    ck_assert_int_eq(sched_getaffinity(0, sizeof after, &after), 0);
    ck_assert(CPU_EQUAL(&after, &one)); /* the caller's own set: untouched */
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
    ck_assert_int_eq(p.cpu[0], p.caller_cpu);
    ck_assert_int_eq(p.may_use_caller_cpu[1], 0);
    ck_assert_int_ne(p.cpu[1], p.caller_cpu);
}
END_TEST

/* A thread's block of scores for sequences of up to L tokens holds the
 * block of every shorter sequence (rows(len) * len is not monotone in len),
 * and the blocks cover a sequence within the rows' bounds. */
START_TEST(test_attention_blocks_fit_the_slot)
{
    static const size_t heads[] = {1, 4, 12};
    size_t bad = 0, bad_L = 0, bad_len = 0; /* ck_assert per case would take minutes */
    for (size_t L = 1; L <= 2200; L += L < 1000 ? 7 : 1)
        for (size_t hi = 0; hi < sizeof heads / sizeof *heads; hi++) {
            const size_t slot = tf__attention_block_floats(L);
            for (size_t len = 1; len <= L; len++) {
                const size_t rows = tf__attention_block_rows(len, heads[hi]);
                if (rows * len > slot || rows < 1 || rows > len || (rows < 64 && rows != len))
                    bad++, bad_L = L, bad_len = len;
            }
        }
    ck_assert_msg(bad == 0, "%zu cases, the last L %zu, len %zu", bad, bad_L, bad_len);
}
END_TEST

START_TEST(test_thread_counts)
{
    tf__schedule s;
    tf__schedule_begin(&s, 1);
    ck_assert_int_eq(s.threads, 1);
    ck_assert_int_eq(s.width, tf__pool_width());
    tf__schedule_end(&s);
    tf__schedule_begin(&s, 0);
    ck_assert_int_eq(s.threads, tf__pool_width());
    tf__schedule_end(&s);
    tf__schedule_begin(&s, 1000);
    ck_assert_int_eq(s.threads, tf__pool_width());
    tf__schedule_end(&s);
}
END_TEST

START_TEST(test_blas_at_one_thread_while_calls_run)
{
    blas_threads_set(2);
    tf__schedule first, second;
    tf__schedule_begin(&first, 0);
    ck_assert_int_eq(blas_threads_get(), 1);
    tf__schedule_begin(&second, 1);
    tf__schedule_end(&first);
    ck_assert_int_eq(blas_threads_get(), 1); /* second still runs */
    tf__schedule_end(&second);
    ck_assert_int_eq(blas_threads_get(), 2); /* put back */

    tf__schedule_begin(&first, 0);
    blas_threads_set(3); /* the host's own choice, meanwhile */
    tf__schedule_end(&first);
    ck_assert_int_eq(blas_threads_get(), 3); /* kept */

    blas_threads_set(1);
    tf__schedule_begin(&first, 0);
    tf__schedule_end(&first);
    ck_assert_int_eq(blas_threads_get(), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schedule");
    TCase *tc = tcase_create("schedule");
    tcase_add_loop_test(tc, test_split_range_covers_once, 0, sizeof cuts / sizeof *cuts);
    tcase_add_test(tc, test_claimed_pool_runs_tasks_at_once);
    tcase_add_test(tc, test_workers_run_off_the_callers_core);
    tcase_add_test(tc, test_thread_counts);
    tcase_add_test(tc, test_attention_blocks_fit_the_slot);
    tcase_add_test(tc, test_blas_at_one_thread_while_calls_run);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
