/* blas_threads.h — the BLAS's own thread count, for the programs that
 * choose it (tfenc-bench --threads) or check that the library puts it
 * back (the tests). The library holds it at 1 only while forward calls
 * run (tfenc.h, "Threads"). */
#ifndef TFENC_BLAS_THREADS_H
#define TFENC_BLAS_THREADS_H

/* Threads the next BLAS call may use; at least 1. */
int blas_threads_get(void);

/* Sets that count for the whole process. */
void blas_threads_set(int threads);

/* The BLAS built against: "OpenBLAS" or "BLIS". */
const char *blas_name(void);

#endif
