/* blas_threads.c — OpenBLAS's or BLIS's thread count, chosen at build time
 * by meson's `blas` option (TFENC_BLAS_OPENBLAS or TFENC_BLAS_BLIS). */
#include "blas_threads.h"

#if defined(TFENC_BLAS_BLIS)
#include <blis.h>

int blas_threads_get(void)
{
    const dim_t n = bli_thread_get_num_threads(); /* -1 when never set */
    return n < 1 ? 1 : (int)n;
}

void blas_threads_set(int threads)
{
    bli_thread_set_num_threads(threads);
}

const char *blas_name(void)
{
    return "BLIS";
}

#else
#include <cblas.h>

int blas_threads_get(void)
{
    return openblas_get_num_threads();
}

void blas_threads_set(int threads)
{
    openblas_set_num_threads(threads);
}

const char *blas_name(void)
{
    return "OpenBLAS";
}

#endif
