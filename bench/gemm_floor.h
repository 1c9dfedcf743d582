/* gemm_floor.h — the matrix products of a forward pass alone. */
#ifndef TFENC_BENCH_GEMM_FLOOR_H
#define TFENC_BENCH_GEMM_FLOOR_H

/* Times the cblas_sgemm calls that a forward pass of `layers` post-norm
 * layers (d_model D, H heads, d_ff F, biases) makes on B sequences of T
 * tokens — same shapes, strides, beta, order and tasks as lib/, on the same
 * threads (n_threads as tf_forward_args has it) with the BLAS held at one
 * thread as during a forward call — with nothing between them, for at least
 * min_time seconds (3 runs at least): what the layer would cost if softmax,
 * LayerNorm, GELU and the copies were free. Fills median and min seconds;
 * returns 0, or -1 if out of memory. */
int gemm_floor_time(int B, int T, int D, int H, int F, int layers, int n_threads, double min_time,
                    double *median, double *best);

#endif
