/* activation.c — GELU (erf and tanh forms), ReLU, SiLU and quick GELU over whole rows, on
 * vectors (compiled once per kernel build: see kernels.h). */
#include "kernels.h"
#include "tfenc.h"
#include "vecmath.h"

/* x (n) = f(x), f one of vecmath.h's activations (inlined: it is a
 * constant at every call) */
static inline void apply(float *x, size_t n, tf__vf (*f)(tf__vf))
{
    size_t j = 0;
    for (; j + TF_VW <= n; j += TF_VW)
        tf__vf_store(x + j, f(tf__vf_load(x + j)));
    if (j < n) /* the lanes past the end hold 0 and are not written back */
        tf__vf_store_part(x + j, f(tf__vf_load_part(x + j, n - j, 0.0f)), n - j);
}

void TF_KERNEL(tf__activation_apply)(float *x, size_t n, int act)
{
    switch (act) {
    case TF_ACTIVATION_GELU:
        apply(x, n, tf__vf_gelu_erf);
        break;
    case TF_ACTIVATION_GELU_TANH:
        apply(x, n, tf__vf_gelu_tanh);
        break;
    case TF_ACTIVATION_RELU:
        apply(x, n, tf__vf_relu);
        break;
    case TF_ACTIVATION_SILU:
        apply(x, n, tf__vf_silu);
        break;
    case TF_ACTIVATION_QUICK_GELU:
        apply(x, n, tf__vf_quick_gelu);
        break;
    }
}
