/* test_threads.c — one const handle, many threads at once: every call gives
 * bitwise the result of the same call made serially (8 threads x 200 calls,
 * with and without their own workspace, each on different inputs); the
 * library puts the BLAS thread count back; forward works in a child
 * after fork(); any n_threads gives bitwise the same result, a negative
 * one is refused; sequences of different lengths in one call keep to
 * their threads' scratch; 200 threads at once (more than the BLAS has buffers for)
 * all succeed and nothing is printed. TFENC_THREAD_CALLS lowers the calls
 * (valgrind runs). */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"
#include "common/suite.h"
#include "common/blas_threads.h"
#include "tfenc.h"

enum { THREADS = 8, INPUTS = 6, B = 2, T = 24, D = 64 };

static int calls_per_thread(void)
{
    const char *env = getenv("TFENC_THREAD_CALLS");
    return env ? atoi(env) : 200;
}

static tf_encoder *enc;
static float inputs[INPUTS][B * T * D];
static float expected[INPUTS][B * T * D];
static const int32_t lengths[INPUTS][B] = {{24, 24}, {3, 24}, {17, 1}, {24, 9}, {5, 5}, {1, 23}};

static tf_status run(int input, float *out, tf_workspace *ws)
{
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = inputs[input], a.lengths = lengths[input];
    a.causal = input % 2, a.output = out, a.workspace = ws;
    return tf_encoder_forward(enc, &a);
}

typedef struct worker {
    int id, mismatches, failures;
} worker;

/* Creates the tests' model and the serial result of each input (values
 * from seed). */
static void make_model(uint64_t seed)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = 4, cfg.d_ff = 128, cfg.n_layers = 2;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    for (int i = 0; i < INPUTS; i++) {
        fill_uniform(inputs[i], B * T * D, seed + (uint64_t)i, -1, 1);
        ck_assert_int_eq(run(i, expected[i], NULL), TF_OK);
    }
}

/* `calls` calls of worker w, each against the serial result. */
static void call_and_check(worker *w, int calls, tf_workspace *ws)
{
    float out[B * T * D];
    for (int c = 0; c < calls; c++) {
        const int input = (w->id + c) % INPUTS;
        if (run(input, out, ws) != TF_OK)
            w->failures++;
        else if (memcmp(out, expected[input], sizeof out) != 0)
            w->mismatches++;
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    tf_workspace *ws = NULL;
    if (w->id % 2 && tf_workspace_create(&ws) != TF_OK)
        w->failures++;
    call_and_check(w, calls_per_thread(), ws);
    tf_workspace_destroy(ws);
    return NULL;
}

START_TEST(test_concurrent_forward_is_bitwise_serial)
{
    const int blas_threads = blas_threads_get();
    make_model(100);
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker){.id = t};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, work, &workers[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        ck_assert_int_eq(workers[t].failures, 0);
        ck_assert_int_eq(workers[t].mismatches, 0);
    }
    ck_assert_int_eq(blas_threads_get(), blas_threads); /* put back after the calls */
    tf_encoder_destroy(enc);
}
END_TEST

/* One product big enough (256^3) that the BLAS runs it on all the threads it
 * is allowed, so that its worker threads exist; this file's tiny shapes
 * alone would not start them. */
static void start_blas_threads(void)
{
    enum { N = 256 };
    static float a[N * N], b[N * N], c[N * N];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
}

/* A child process forked after the library and the BLAS's worker threads
 * ran computes the same result. (With BLIS on more than one OpenMP thread it
 * would hang: libgomp's threads do not survive fork; see README.) */
START_TEST(test_forward_after_fork)
{
    make_model(7);
    start_blas_threads();
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        static float out[B * T * D];
        _exit(run(0, out, NULL) == TF_OK && memcmp(out, expected[0], sizeof out) == 0 ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    tf_encoder_destroy(enc);
}
END_TEST

/* Far more threads at once than OpenBLAS has buffers for (Debian's 0.3.21
 * build: a fixed table sized by its NUM_THREADS = 64), all released by one
 * barrier on one small handle: every call succeeds with the serial result,
 * and nothing is printed (stdout and stderr go to a file meanwhile). */
enum { CROWD = 200, CROWD_CALLS = 3 };
static pthread_barrier_t crowd_start;

static void *crowd_work(void *arg)
{
    pthread_barrier_wait(&crowd_start);
    call_and_check(arg, CROWD_CALLS, NULL);
    return NULL;
}

/* Redirects fd to a new temporary file; returns the saved fd. */
static int capture(int fd, FILE **file)
{
    fflush(NULL);
    *file = tmpfile();
    ck_assert_ptr_nonnull(*file);
    const int saved = dup(fd);
    ck_assert_int_ge(dup2(fileno(*file), fd), 0);
    return saved;
}

/* Puts fd back; returns the bytes written to it meanwhile. */
static long release(int fd, int saved, FILE *file)
{
    fflush(NULL);
    ck_assert_int_ge(dup2(saved, fd), 0);
    close(saved);
    fseek(file, 0, SEEK_END);
    const long bytes = ftell(file);
    fclose(file);
    return bytes;
}

START_TEST(test_many_more_threads_than_blas_buffers)
{
    make_model(300);
    FILE *out_file, *err_file;
    const int saved_out = capture(STDOUT_FILENO, &out_file);
    const int saved_err = capture(STDERR_FILENO, &err_file);
    static pthread_t threads[CROWD];
    static worker workers[CROWD];
    ck_assert_int_eq(pthread_barrier_init(&crowd_start, NULL, CROWD), 0);
    for (int t = 0; t < CROWD; t++) {
        workers[t] = (worker){.id = t};
        ck_assert_int_eq(pthread_create(&threads[t], NULL, crowd_work, &workers[t]), 0);
    }
    int failures = 0, mismatches = 0;
    for (int t = 0; t < CROWD; t++) {
        pthread_join(threads[t], NULL);
        failures += workers[t].failures, mismatches += workers[t].mismatches;
    }
    pthread_barrier_destroy(&crowd_start);
    const long printed = release(STDERR_FILENO, saved_err, err_file) +
        release(STDOUT_FILENO, saved_out, out_file);
    ck_assert_int_eq(failures, 0);
    ck_assert_int_eq(mismatches, 0);
    ck_assert_int_eq(printed, 0);
    tf_encoder_destroy(enc);
}
END_TEST

/* One call at every thread count gives bitwise the same output, hidden
 * states and attention weights: the work is cut the same way whatever the
 * count (a model big enough for its projections of 384 and 256 columns to
 * be split, small enough for valgrind). */
enum { WB = 2, WT = 200, WD = 128, WH = 2, WL = 2 };

typedef struct wide_result {
    float out[WB * WT * WD], hidden[(WL + 1) * WB * WT * WD], attn[WL * WB * WH * WT * WT];
} wide_result;

static tf_status run_wide(const tf_encoder *e, const float *x, int32_t n_threads, wide_result *r)
{
    static const int32_t wide_lengths[WB] = {200, 150};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = WB, a.seq_len = WT, a.input_embeds = x, a.lengths = wide_lengths;
    a.output = r->out, a.hidden_states = r->hidden, a.attentions = r->attn;
    a.n_threads = n_threads;
    return tf_encoder_forward(e, &a);
}

START_TEST(test_any_thread_count_is_bitwise_the_same)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = WD, cfg.n_heads = WH, cfg.d_ff = 2 * WD, cfg.n_layers = WL;
    tf_encoder *e;
    ck_assert_int_eq(tf_encoder_create(&cfg, &e), TF_OK);
    static float x[WB * WT * WD];
    fill_uniform(x, WB * WT * WD, 11, -1, 1);
    static wide_result alone, other;
    ck_assert_int_eq(run_wide(e, x, 1, &alone), TF_OK);
    const int32_t counts[] = {0, 2, 3, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        ck_assert_int_eq(run_wide(e, x, counts[i], &other), TF_OK);
        ck_assert_msg(memcmp(&alone, &other, sizeof alone) == 0, "n_threads %d differs from 1",
                      (int)counts[i]);
    }
    ck_assert_int_eq(run_wide(e, x, -1, &other), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "n_threads: expected >= 0, got -1");
    tf_encoder_destroy(e);
}
END_TEST

/* Sequences of different lengths in one call share the threads' blocks of
 * attention scores, each sized by the longest: a sequence one token
 * shorter gets one more query row a block (1100 tokens: 953 rows; 1099:
 * 954), whose block outgrew its thread's slot and overwrote the other
 * thread's scores (wrong numbers on 2 threads, most calls). Each sequence
 * of the batch must match its call alone. */
enum { SB = 2, ST = 1100, SD = 32 };

START_TEST(test_shorter_sequence_blocks_fit_their_slot)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = SD, cfg.n_heads = 4, cfg.d_ff = 2 * SD, cfg.n_layers = 1;
    tf_encoder *e;
    ck_assert_int_eq(tf_encoder_create(&cfg, &e), TF_OK);
    static float x[SB * ST * SD], out[SB * ST * SD], alone[SB][ST * SD];
    static const int32_t lens[SB] = {ST, ST - 1};
    fill_uniform(x, SB * ST * SD, 21, -1, 1);
    tf_forward_args a;
    for (int b = 0; b < SB; b++) {
        tf_forward_args_init(&a);
        a.batch = 1, a.seq_len = lens[b], a.input_embeds = x + (size_t)b * ST * SD;
        a.output = alone[b], a.n_threads = 1;
        ck_assert_int_eq(tf_encoder_forward(e, &a), TF_OK);
    }
    const int calls = calls_per_thread() >= 20 ? calls_per_thread() / 20 : 1; /* 10; valgrind 1 */
    for (int call = 0; call < calls; call++) {
        tf_forward_args_init(&a);
        a.batch = SB, a.seq_len = ST, a.input_embeds = x, a.lengths = lens, a.output = out;
        a.n_threads = 2;
        ck_assert_int_eq(tf_encoder_forward(e, &a), TF_OK);
        for (int b = 0; b < SB; b++)
            for (size_t i = 0; i < (size_t)lens[b] * SD; i++)
                ck_assert_float_eq_tol(out[(size_t)b * ST * SD + i], alone[b][i], 1e-4f);
    }
    tf_encoder_destroy(e);
}
END_TEST

/* Each thread has its own last-error message. */
static void *fail_in_thread(void *arg)
{
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = -5;
    tf_encoder_forward(arg, &a);
    return NULL;
}

START_TEST(test_last_error_is_per_thread)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 8;
    tf_encoder *small;
    ck_assert_int_eq(tf_encoder_create(&cfg, &small), TF_OK);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 0;
    ck_assert_int_ne(tf_encoder_forward(small, &a), TF_OK);
    pthread_t other;
    ck_assert_int_eq(pthread_create(&other, NULL, fail_in_thread, small), 0);
    pthread_join(other, NULL);
    ck_assert_str_eq(tf_last_error(), "seq_len: expected >= 1, got 0");
    tf_encoder_destroy(small);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_concurrent_forward_is_bitwise_serial);
    tcase_add_test(tc, test_last_error_is_per_thread);
    tcase_add_test(tc, test_forward_after_fork);
    tcase_add_test(tc, test_many_more_threads_than_blas_buffers);
    tcase_add_test(tc, test_any_thread_count_is_bitwise_the_same);
    tcase_add_test(tc, test_shorter_sequence_blocks_fit_their_slot);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
