/* blas.h — what the library asks of the BLAS it was built with besides
 * cblas_sgemm (meson's `blas` option: TFENC_BLAS_OPENBLAS or
 * TFENC_BLAS_BLIS): its thread setting, and how it describes itself. */
#ifndef TF_BLAS_H
#define TF_BLAS_H

/* Its thread count (1 where it was never set and says so). */
int tf__blas_threads(void);
void tf__blas_set_threads(int n);

/* "OpenBLAS" or "BLIS". */
const char *tf__blas_name(void);
/* Its own description of its build and version (static). */
const char *tf__blas_build(void);
/* The CPU kernels it runs: OpenBLAS's core name, BLIS's configuration. */
const char *tf__blas_kernels(void);

#endif
