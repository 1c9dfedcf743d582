/* kernel_dispatch.c — runs the build of the vector loops (kernels.h) that
 * this CPU can: the AVX2+FMA one where it has both, else the baseline one.
 * Asked on every call (a load and a test), not by an ifunc resolver, which
 * would run while the library is still being relocated. */
#include "kernels.h"

int tf_kernels_use_avx2(void)
{
#ifdef TF_HAVE_AVX2_KERNELS
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

void tf_softmax_rows(float *s, size_t rows, size_t cols)
{
#ifdef TF_HAVE_AVX2_KERNELS
    if (tf_kernels_use_avx2()) {
        tf_softmax_rows_avx2(s, rows, cols);
        return;
    }
#endif
    tf_softmax_rows_base(s, rows, cols);
}

void tf_activation_apply(float *x, size_t n, int act)
{
#ifdef TF_HAVE_AVX2_KERNELS
    if (tf_kernels_use_avx2()) {
        tf_activation_apply_avx2(x, n, act);
        return;
    }
#endif
    tf_activation_apply_base(x, n, act);
}
