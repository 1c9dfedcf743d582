/* kernels.h — the element-wise and row-wise loops that are not matrix
 * products: softmax, LayerNorm, activations. Rows are contiguous. */
#ifndef TF_KERNELS_H
#define TF_KERNELS_H

#include <stddef.h>

/* Softmax and the activations are written on vectors (vec.h) in
 * softmax.c and activation.c, LayerNorm as plain loops in layernorm.c; the
 * three are compiled up to three times on x86-64: for every CPU (the _base
 * functions), with AVX2 and FMA (_avx2, where TF_HAVE_AVX2_KERNELS is
 * defined) and with AVX-512F (_avx512, where TF_HAVE_AVX512_KERNELS is).
 * tf__softmax_rows, tf__activation_apply and the LayerNorms run the last
 * build in tf__kernel_builds that this CPU can; the tests and
 * tfenc-kernels-bench run each. */
#if defined(TF_KERNELS_AVX512)
#define TF_KERNEL(name) name##_avx512
#elif defined(TF_KERNELS_AVX2)
#define TF_KERNEL(name) name##_avx2
#else
#define TF_KERNEL(name) name##_base
#endif

#define TF_KERNEL_DECLARE(isa)                                                                \
    void tf__softmax_rows_##isa(float *s, size_t rows, size_t cols);                          \
    void tf__activation_apply_##isa(float *x, size_t n, int act);                             \
    void tf__layernorm_rows_##isa(float *out, const float *x, const float *w, const float *b, \
                                  size_t rows, size_t D, float eps);                          \
    void tf__add_layernorm_rows_##isa(float *x, const float *delta, const float *w,           \
                                      const float *b, size_t rows, size_t D, float eps);
TF_KERNEL_DECLARE(base)
TF_KERNEL_DECLARE(avx2)
TF_KERNEL_DECLARE(avx512)

/* What a build needs of the CPU. */
typedef enum tf__kernel_isa { TF_ISA_BASE, TF_ISA_AVX2_FMA, TF_ISA_AVX512F } tf__kernel_isa;

typedef struct tf__kernel_build {
    const char *name; /* "base", "avx2", "avx512" */
    tf__kernel_isa needs;
    void (*softmax_rows)(float *s, size_t rows, size_t cols);
    void (*activation_apply)(float *x, size_t n, int act);
    void (*layernorm_rows)(float *out, const float *x, const float *w, const float *b, size_t rows,
                           size_t D, float eps);
    void (*add_layernorm_rows)(float *x, const float *delta, const float *w, const float *b,
                               size_t rows, size_t D, float eps);
} tf__kernel_build;

/* The builds compiled in, the baseline first: tf__kernel_build_count. */
extern const tf__kernel_build tf__kernel_builds[];
extern const size_t tf__kernel_build_count;

/* Whether this CPU can run build b (the baseline runs everywhere). */
int tf__kernel_build_runs_here(const tf__kernel_build *b);

/* The build that tf__softmax_rows, tf__activation_apply and the LayerNorms run. */
const tf__kernel_build *tf__kernel_build_chosen(void);

/* Softmax of each row of s (rows, cols), in place. Subtracts the row
 * maximum; a row whose entries are all -inf becomes all 0 (a query with no
 * visible key attends to nothing); a NaN anywhere in a row makes the row
 * NaN. */
void tf__softmax_rows(float *s, size_t rows, size_t cols);

/* out = (x - mean) / sqrt(var + eps) * w + b over each row of D values,
 * two-pass with double accumulation. x, out (rows, D); w, b (D); b may be
 * NULL; out may equal x. */
void tf__layernorm_rows(float *out, const float *x, const float *w, const float *b, size_t rows,
                        size_t D, float eps);

/* x = LayerNorm(x + delta), row by row. x, delta (rows, D). */
void tf__add_layernorm_rows(float *x, const float *delta, const float *w, const float *b,
                            size_t rows, size_t D, float eps);

/* x += delta over n values. */
void tf__add(float *x, const float *delta, size_t n);

/* x *= factor over n values, element by element. */
void tf__mul(float *x, const float *factor, size_t n);

/* x = act(x) over n values; act is a tf_activation. */
void tf__activation_apply(float *x, size_t n, int act);

/* Index of the first NaN or infinity in x[0..n), or n when every value is
 * finite. */
size_t tf__first_nonfinite(const float *x, size_t n);

/* The largest |x| over x[0..n) (0 for n = 0); a NaN never wins, an
 * infinity does. */
float tf__max_abs(const float *x, size_t n);

#endif
