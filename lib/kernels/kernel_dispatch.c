/* kernel_dispatch.c — the builds of the vector loops (kernels.h), and
 * running the best one this CPU can: AVX-512F, else AVX2+FMA, else the
 * baseline. Asked on
 * every call (a few loads and tests), not by an ifunc resolver, which would
 * run while the library is still being relocated. */
#include "kernels.h"

const tf__kernel_build tf__kernel_builds[] = {
    {"base", TF_ISA_BASE, tf__softmax_rows_base, tf__activation_apply_base, tf__layernorm_rows_base,
     tf__add_layernorm_rows_base},
#ifdef TF_HAVE_AVX2_KERNELS
    {"avx2", TF_ISA_AVX2_FMA, tf__softmax_rows_avx2, tf__activation_apply_avx2,
     tf__layernorm_rows_avx2, tf__add_layernorm_rows_avx2},
#endif
#ifdef TF_HAVE_AVX512_KERNELS
    {"avx512", TF_ISA_AVX512F, tf__softmax_rows_avx512, tf__activation_apply_avx512,
     tf__layernorm_rows_avx512, tf__add_layernorm_rows_avx512},
#endif
};
const size_t tf__kernel_build_count = sizeof tf__kernel_builds / sizeof tf__kernel_builds[0];

int tf__kernel_build_runs_here(const tf__kernel_build *b)
{
#if defined(__x86_64__) || defined(__i386__)
    if (b->needs == TF_ISA_AVX2_FMA)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (b->needs == TF_ISA_AVX512F)
        return __builtin_cpu_supports("avx512f");
#endif
    return b->needs == TF_ISA_BASE;
}

const tf__kernel_build *tf__kernel_build_chosen(void)
{
    size_t i = tf__kernel_build_count - 1;
    while (i > 0 && !tf__kernel_build_runs_here(&tf__kernel_builds[i]))
        i--;
    return &tf__kernel_builds[i];
}

void tf__softmax_rows(float *s, size_t rows, size_t cols)
{
    tf__kernel_build_chosen()->softmax_rows(s, rows, cols);
}

void tf__activation_apply(float *x, size_t n, int act)
{
    tf__kernel_build_chosen()->activation_apply(x, n, act);
}

void tf__layernorm_rows(float *out, const float *x, const float *w, const float *b, size_t rows,
                        size_t D, float eps)
{
    tf__kernel_build_chosen()->layernorm_rows(out, x, w, b, rows, D, eps);
}

void tf__add_layernorm_rows(float *x, const float *delta, const float *w, const float *b,
                            size_t rows, size_t D, float eps)
{
    tf__kernel_build_chosen()->add_layernorm_rows(x, delta, w, b, rows, D, eps);
}
