/* kernels.h — the element-wise and row-wise loops that are not matrix
 * products: softmax, LayerNorm, activations. Rows are contiguous. */
#ifndef TF_KERNELS_H
#define TF_KERNELS_H

#include <stddef.h>

/* The loops below vectorise; on x86-64 with GCC they are also built for
 * AVX2, chosen when the library loads on a CPU that has it. Not under
 * ThreadSanitizer: the resolver GCC makes runs while the library is being
 * relocated, before TSan's runtime is initialised, and TSan instruments it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)
#define TF_VECTOR_LOOP __attribute__((target_clones("avx2", "default")))
#else
#define TF_VECTOR_LOOP
#endif

/* Softmax of each row of s (rows, cols), in place. Subtracts the row
 * maximum; a row whose entries are all -inf becomes all 0 (a query with no
 * visible key attends to nothing); a NaN anywhere in a row makes the row
 * NaN. */
void tf_softmax_rows(float *s, size_t rows, size_t cols);

/* out = (x - mean) / sqrt(var + eps) * w + b over each row of D values,
 * two-pass with double accumulation. x, out (rows, D); w, b (D); b may be
 * NULL; out may equal x. */
void tf_layernorm_rows(float *out, const float *x, const float *w, const float *b, size_t rows,
                       size_t D, float eps);

/* x = LayerNorm(x + delta), row by row. x, delta (rows, D). */
void tf_add_layernorm_rows(float *x, const float *delta, const float *w, const float *b,
                           size_t rows, size_t D, float eps);

/* x += delta over n values. */
void tf_add(float *x, const float *delta, size_t n);

/* x = act(x) over n values; act is a tf_activation. */
void tf_activation_apply(float *x, size_t n, int act);

/* The scalar activations (also the reference of the vector loops). */
float tf_gelu_erf(float x);
float tf_gelu_tanh(float x);

#endif
