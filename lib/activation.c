/* activation.c — GELU (erf and tanh forms) and ReLU. */
#include <math.h>

#include "kernels.h"
#include "tfenc.h"

float tf_gelu_erf(float x)
{
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

float tf_gelu_tanh(float x)
{
    const float k = 0.79788456080286536f; /* sqrt(2 / pi) */
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

void tf_activation_apply(float *x, size_t n, int act)
{
    switch (act) {
    case TF_ACTIVATION_GELU:
        for (size_t i = 0; i < n; i++)
            x[i] = tf_gelu_erf(x[i]);
        break;
    case TF_ACTIVATION_GELU_TANH:
        for (size_t i = 0; i < n; i++)
            x[i] = tf_gelu_tanh(x[i]);
        break;
    case TF_ACTIVATION_RELU:
        for (size_t i = 0; i < n; i++)
            x[i] = x[i] > 0.0f ? x[i] : (x[i] == x[i] ? 0.0f : x[i]); /* NaN stays NaN */
        break;
    }
}
