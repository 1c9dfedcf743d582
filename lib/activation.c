/* activation.c — GELU (erf and tanh forms) and ReLU, over whole rows (the
 * loops vectorise: see vecmath.h). */
#include "kernels.h"
#include "tfenc.h"
#include "vecmath.h"

float tf_gelu_erf(float x)
{
    return tf_vgelu_erf(x);
}

float tf_gelu_tanh(float x)
{
    return tf_vgelu_tanh(x);
}

/* (static: the resolver that target_clones makes stays local) */
TF_VECTOR_LOOP static void activation_apply(float *x, size_t n, int act)
{
    switch (act) {
    case TF_ACTIVATION_GELU:
        for (size_t i = 0; i < n; i++)
            x[i] = tf_vgelu_erf(x[i]);
        break;
    case TF_ACTIVATION_GELU_TANH:
        for (size_t i = 0; i < n; i++)
            x[i] = tf_vgelu_tanh(x[i]);
        break;
    case TF_ACTIVATION_RELU:
        for (size_t i = 0; i < n; i++)
            x[i] = x[i] > 0.0f ? x[i] : (x[i] == x[i] ? 0.0f : x[i]); /* NaN stays NaN */
        break;
    }
}

void tf_activation_apply(float *x, size_t n, int act)
{
    activation_apply(x, n, act);
}
