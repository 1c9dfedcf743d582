/* kernels_bench.c — the library's own loops alone, on the shapes of one
 * BERT-base layer: softmax, GELU and add + LayerNorm in each build of the
 * vector loops this CPU runs (kernels.h).
 *
 *   tfenc-kernels-bench [T]      (default 2048; scores (T, T), FFN (T, 3072),
 *                                 LayerNorm (T, 768))
 *
 * Per loop and build: the best of at least 5 runs and 0.5 s, in ns per
 * value, the inputs rewritten before each run (softmax works in place). */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"
#include "tfenc.h"
#include "timing.h"

/* x (n) = values in [lo, hi) */
static void fill(float *x, size_t n, float lo, float hi)
{
    for (size_t i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * (float)((i * 2654435761u) % 1000) / 1000.0f;
}

typedef enum { SOFTMAX, GELU, ADD_LAYERNORM } loop;

/* ns per value of one loop over (rows, cols) */
static double time_loop(loop which, const tf__kernel_build *b, size_t rows, size_t cols, float *x,
                        float *delta, const float *w)
{
    const size_t n = rows * cols;
    double best = 1e30, start = bench_now();
    for (int run = 0; run < 5 || bench_now() - start < 0.5; run++) {
        fill(x, n, -8.0f, 8.0f);
        const double t0 = bench_now();
        if (which == SOFTMAX)
            b->softmax_rows(x, rows, cols);
        else if (which == GELU)
            b->activation_apply(x, n, TF_ACTIVATION_GELU);
        else
            b->add_layernorm_rows(x, delta, w, w, rows, cols, 1e-12f);
        const double dt = bench_now() - t0;
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
           tf__kernel_build_chosen()->name);
    printf("%-6s %18s %18s %22s\n", "build", "softmax (T, T)", "GELU (T, 3072)",
           "add + LayerNorm (T, 768)");
    for (size_t i = 0; i < tf__kernel_build_count; i++) {
        const tf__kernel_build *b = &tf__kernel_builds[i];
        if (!tf__kernel_build_runs_here(b))
            continue;
        printf("%-6s %18.3f %18.3f %22.3f\n", b->name, time_loop(SOFTMAX, b, t, t, x, delta, w),
               time_loop(GELU, b, t, F, x, delta, w),
               time_loop(ADD_LAYERNORM, b, t, D, x, delta, w));
    }
    free(x), free(delta), free(w);
    return 0;
}
