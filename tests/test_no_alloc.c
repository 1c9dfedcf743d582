/* test_no_alloc.c — a forward call with a workspace large enough (reserved,
 * or grown by an earlier call), or with none after a first call on the
 * handle (its own scratch), allocates nothing: this program replaces
 * malloc and its relatives for the whole process, so every allocation
 * counts — the library's, OpenBLAS's and the C library's. OpenBLAS runs on
 * one thread here: Debian's build of its multi-threaded GEMM driver mallocs
 * a job buffer on every call (its own allocation, not the library's). With
 * BLIS the calls run on the caller's thread alone: BLIS's memory broker
 * mallocs packing blocks when two threads pack at once (seen in about one
 * run in five on a loaded machine, from the pool's worker inside
 * bli_gemm_ex), again its allocation, not the library's. */
#define _GNU_SOURCE
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/suite.h"
#include "common/util.h"
#include "common/blas_threads.h"
#include "tfenc.h"

/* ---- Counting allocator ---------------------------------------------------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_long allocations;

void *malloc(size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(p, n);
}

void *aligned_alloc(size_t alignment, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(alignment, n);
}

int posix_memalign(void **out, size_t alignment, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    *out = __libc_memalign(alignment, n);
    return *out ? 0 : 12; /* ENOMEM */
}

/* ---- Tests --------------------------------------------------------------------- */

#if defined(TFENC_BLAS_BLIS)
#define COUNTED_N_THREADS 1
#else
#define COUNTED_N_THREADS 0 /* every core: the library's pool allocates nothing either */
#endif

enum { B = 3, T = 40, D = 64 };

static tf_encoder *model(void)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = D, c.n_heads = 4, c.d_ff = 128, c.n_layers = 2, c.vocab_size = 100;
    c.position = TF_POSITION_LEARNED, c.max_positions = 64, c.pooler = 1;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&c, &enc), TF_OK);
    return enc;
}

START_TEST(test_reused_workspace_allocates_nothing)
{
    tf_encoder *enc = model();
    static int32_t ids[B * T];
    static float out[B * T * D], hidden[3 * B * T * D], attn[2 * B * 4 * T * T], pooled[B * D];
    const int32_t lengths[B] = {40, 17, 1};
    for (int i = 0; i < B * T; i++)
        ids[i] = i % 100;
    tf_workspace *ws;
    ck_assert_int_eq(tf_workspace_create(&ws), TF_OK);
    ck_assert_int_eq(tf_workspace_reserve(ws, enc, B, T), TF_OK);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.lengths = lengths, a.output = out;
    a.hidden_states = hidden, a.attentions = attn, a.pooled_output = pooled, a.workspace = ws;
    a.n_threads = COUNTED_N_THREADS;
    blas_threads_set(1);
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    /* no Check assertion between the counts: Check allocates to record them */
    tf_status s[11];
    const int32_t shorter[2] = {30, 9};
    const long before = atomic_load(&allocations);
    for (int i = 0; i < 10; i++)
        s[i] = tf_encoder_forward(enc, &a);
    a.batch = 2, a.seq_len = 30, a.lengths = shorter; /* smaller calls fit too */
    s[10] = tf_encoder_forward(enc, &a);
    const long during = atomic_load(&allocations) - before;
    for (int i = 0; i < 11; i++)
        ck_assert_int_eq(s[i], TF_OK);
    ck_assert_int_eq(during, 0);

    /* Without a workspace: the first call grows the handle's own scratch
     * (and so shows that the counter counts), later ones reuse it. */
    a.workspace = NULL;
    tf_status without[3];
    long made[3];
    for (int i = 0; i < 3; i++) {
        const long again = atomic_load(&allocations);
        without[i] = tf_encoder_forward(enc, &a);
        made[i] = atomic_load(&allocations) - again;
    }
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(without[i], TF_OK);
    ck_assert_int_gt(made[0], 0);
    ck_assert_int_eq(made[1], 0);
    ck_assert_int_eq(made[2], 0);
    tf_workspace_destroy(ws);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("no_alloc");
    TCase *tc = tcase_create("no_alloc");
    tcase_add_test(tc, test_reused_workspace_allocates_nothing);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
