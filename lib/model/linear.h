/* linear.h — the one place that calls cblas_sgemm for a projection. */
#ifndef TF_LINEAR_H
#define TF_LINEAR_H

#include <stddef.h>

/* y (n, out) = x (n, in) . w (out, in)^T + b (out); b may be NULL.
 * Dimensions are validated by the caller to fit in an int. */
void tf_linear(float *y, const float *x, const float *w, const float *b, size_t n, size_t out,
               size_t in);

#endif
