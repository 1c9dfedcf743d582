/* blas.c — the BLAS's thread setting and self-description (blas.h). */
#include "blas.h"

#if defined(TFENC_BLAS_BLIS)
#include <blis.h>

int tf__blas_threads(void)
{
    const dim_t n = bli_thread_get_num_threads(); /* -1 when never set */
    return n < 1 ? 1 : (int)n;
}

void tf__blas_set_threads(int n)
{
    bli_thread_set_num_threads(n);
}

const char *tf__blas_name(void)
{
    return "BLIS";
}

const char *tf__blas_build(void)
{
    return bli_info_get_version_str();
}

const char *tf__blas_kernels(void)
{
    return bli_arch_string(bli_arch_query_id());
}
#else
#include <cblas.h>

int tf__blas_threads(void)
{
    return openblas_get_num_threads();
}

void tf__blas_set_threads(int n)
{
    openblas_set_num_threads(n);
}

const char *tf__blas_name(void)
{
    return "OpenBLAS";
}

const char *tf__blas_build(void)
{
    return openblas_get_config();
}

const char *tf__blas_kernels(void)
{
    return openblas_get_corename();
}
#endif
