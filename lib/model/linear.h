/* linear.h — the one place that calls cblas_sgemm for a projection. */
#ifndef TF_LINEAR_H
#define TF_LINEAR_H

#include <stddef.h>

#include "schedule.h"

/* No activation after a projection (tf__linear_split's `activation`). */
#define TF_LINEAR_NO_ACTIVATION (-1)

/* y (n, out) = x (n, in) . w (out, in)^T + b (out); b may be NULL; one
 * cblas_sgemm on the caller's thread. Dimensions are validated by the
 * caller to fit in an int. */
void tf__linear(float *y, const float *x, const float *w, const float *b, size_t n, size_t out,
                size_t in);

/* A layer's projection, its weight stored transposed: y (n, out) = x (n, in)
 * . wt (in, out) + b (out), as tf__linear_parts(s->width, out) column
 * blocks, each its own cblas_sgemm over all n rows with the block's columns
 * of wt, run on s's threads; then, unless activation is
 * TF_LINEAR_NO_ACTIVATION, the tf_activation on each block while it is
 * fresh in cache.
 * Why transposed: OpenBLAS packs the weight on every call, and packs (in,
 * out) by copying rows where PyTorch's (out, in) needs a gather; at short
 * sequences that packing is a sixth of the call (bench/results/
 * gemm_floor.txt). With the Cooperlake kernels the 12-layer BERT-base
 * measured 4 % faster so at 1 x 128 and 8 % at 1 x 16; with Haswell's, level
 * from T = 64 and 5-8 % slower at T = 16
 * (bench/results/transposed_weights_ab.txt). */
void tf__linear_split(const tf__schedule *s, float *y, const float *x, const float *wt,
                      const float *b, size_t n, size_t out, size_t in, int activation);

/* The same with x's rows ldx >= in floats apart (x a column slice of a
 * wider matrix, read in place). */
void tf__linear_split_strided(const tf__schedule *s, float *y, const float *x, size_t ldx,
                              const float *wt, const float *b, size_t n, size_t out, size_t in,
                              int activation);

/* Column blocks of a projection with `out` columns on a machine of `width`
 * threads: one per thread, each at least TF_LINEAR_MIN_COLUMNS wide (a
 * narrower block packs x once more for little work). */
#define TF_LINEAR_MIN_COLUMNS 128
size_t tf__linear_parts(int width, size_t out);

/* Column blocks start at multiples of this (the BLAS's kernel widths). */
#define TF_LINEAR_COLUMN_ALIGN 16

#endif
