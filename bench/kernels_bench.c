/* kernels_bench.c — the library's own loops alone, on the shapes of one
 * BERT-base layer: softmax and GELU in each build of the vector loops this
 * CPU runs (kernels.h), add + LayerNorm (built once).
 *
 *   tfenc-kernels-bench [T]      (default 2048; scores (T, T), FFN (T, 3072),
 *                                 LayerNorm (T, 768))
 *
 * Per loop and build: the best of at least 5 runs and 0.5 s, in ns per
 * value, the inputs rewritten before each run (softmax works in place). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"
#include "tfenc.h"

typedef struct kernel_build {
    const char *name;
    void (*softmax_rows)(float *s, size_t rows, size_t cols);
    void (*activation_apply)(float *x, size_t n, int act);
} kernel_build;

static const kernel_build builds[] = {
    {"base", tf_softmax_rows_base, tf_activation_apply_base},
#ifdef TF_HAVE_AVX2_KERNELS
    {"avx2", tf_softmax_rows_avx2, tf_activation_apply_avx2},
#endif
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* x (n) = values in [lo, hi) */
static void fill(float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * (float)((i * 2654435761u) % 1000) / 1000.0f;
}

typedef enum { SOFTMAX, GELU, ADD_LAYERNORM } loop;

/* ns per value of one loop over (rows, cols) */
static double time_loop(loop which, const kernel_build *b, size_t rows, size_t cols, float *x,
                        float *delta, const float *w)
{
    const size_t n = rows * cols;
    double best = 1e30, start = now();
    for (int run = 0; run < 5 || now() - start < 0.5; run++) {
        fill(x, n, -8.0f, 8.0f);
        const double t0 = now();
        if (which == SOFTMAX)
            b->softmax_rows(x, rows, cols);
        else if (which == GELU)
            b->activation_apply(x, n, TF_ACTIVATION_GELU);
        else
            tf_add_layernorm_rows(x, delta, w, w, rows, cols, 1e-12f);
        const double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    return best * 1e9 / (double)n;
}

int main(int argc, char **argv)
{
    const long T = argc > 1 ? strtol(argv[1], NULL, 10) : 2048;
    if (T < 1 || T > 16384) {
        fprintf(stderr, "usage: tfenc-kernels-bench [T in 1..16384]\n");
        return 2;
    }
    const size_t t = (size_t)T, D = 768, F = 3072;
    const size_t most = t * (t > F ? t : F);
    float *x = malloc(most * sizeof *x), *delta = malloc(t * D * sizeof *delta);
    float *w = malloc(D * sizeof *w);
    if (!x || !delta || !w)
        return 1;
    fill(delta, t * D, -1.0f, 1.0f);
    fill(w, D, 0.5f, 1.5f);
    printf("ns per value, best of >= 5 runs; this CPU runs the %s build\n",
           tf_kernels_use_avx2() ? "avx2" : "base");
    printf("%-6s %18s %18s\n", "build", "softmax (T, T)", "GELU (T, 3072)");
    for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
        if (!strcmp(builds[i].name, "avx2") && !tf_kernels_use_avx2())
            continue;
        const double sm = time_loop(SOFTMAX, &builds[i], t, t, x, delta, w);
        const double gelu = time_loop(GELU, &builds[i], t, F, x, delta, w);
        printf("%-6s %18.3f %18.3f\n", builds[i].name, sm, gelu);
    }
    printf("add + LayerNorm (T, 768): %.3f\n",
           time_loop(ADD_LAYERNORM, &builds[0], t, D, x, delta, w));
    free(x), free(delta), free(w);
    return 0;
}
