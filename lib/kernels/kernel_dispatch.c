/* kernel_dispatch.c — the builds of the vector loops (kernels.h), and
 * running the best one this CPU can: AVX-512F, else AVX2+FMA, else the
 * baseline. Asked on
 * every call (a few loads and tests), not by an ifunc resolver, which would
 * run while the library is still being relocated. */
#include "kernels.h"

const tf_kernel_build tf_kernel_builds[] = {
    {"base", TF_ISA_BASE, tf_softmax_rows_base, tf_activation_apply_base,
     tf_layernorm_rows_base, tf_add_layernorm_rows_base},
#ifdef TF_HAVE_AVX2_KERNELS
    {"avx2", TF_ISA_AVX2_FMA, tf_softmax_rows_avx2, tf_activation_apply_avx2,
     tf_layernorm_rows_avx2, tf_add_layernorm_rows_avx2},
#endif
#ifdef TF_HAVE_AVX512_KERNELS
    {"avx512", TF_ISA_AVX512F, tf_softmax_rows_avx512, tf_activation_apply_avx512,
     tf_layernorm_rows_avx512, tf_add_layernorm_rows_avx512},
#endif
};
const size_t tf_kernel_build_count = sizeof tf_kernel_builds / sizeof tf_kernel_builds[0];

int tf_kernel_build_runs_here(const tf_kernel_build *b)
{
#if defined(__x86_64__) || defined(__i386__)
    if (b->needs == TF_ISA_AVX2_FMA)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (b->needs == TF_ISA_AVX512F)
        return __builtin_cpu_supports("avx512f");
#endif
    return b->needs == TF_ISA_BASE;
}

const tf_kernel_build *tf_kernel_build_chosen(void)
{
    size_t i = tf_kernel_build_count - 1;
    while (i > 0 && !tf_kernel_build_runs_here(&tf_kernel_builds[i]))
        i--;
    return &tf_kernel_builds[i];
}

void tf_softmax_rows(float *s, size_t rows, size_t cols)
{
    tf_kernel_build_chosen()->softmax_rows(s, rows, cols);
}

void tf_activation_apply(float *x, size_t n, int act)
{
    tf_kernel_build_chosen()->activation_apply(x, n, act);
}

void tf_layernorm_rows(float *out, const float *x, const float *w, const float *b, size_t rows,
                       size_t D, float eps)
{
    tf_kernel_build_chosen()->layernorm_rows(out, x, w, b, rows, D, eps);
}

void tf_add_layernorm_rows(float *x, const float *delta, const float *w, const float *b,
                           size_t rows, size_t D, float eps)
{
    tf_kernel_build_chosen()->add_layernorm_rows(x, delta, w, b, rows, D, eps);
}
