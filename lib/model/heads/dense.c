/* dense.c — sentence-transformers' Dense module (sentence_transformers/
 * models/Dense.py, forward: activation_function(linear(x))). */
#include "dense.h"

#include <math.h>

#include "linear.h"

static float activate(float x, tf__dense_activation act)
{
    switch (act) {
    case TF_DENSE_IDENTITY:
        return x;
    case TF_DENSE_TANH:
        return tanhf(x);
    case TF_DENSE_RELU:
        return x > 0.0f ? x : 0.0f;
    case TF_DENSE_SIGMOID:
        return (float)(1.0 / (1.0 + exp(-(double)x)));
    case TF_DENSE_GELU:
        return (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
    }
    return x;
}

void tf__dense_forward(float *y, const float *x, const float *w, const float *b, size_t n,
                       size_t out, size_t in, tf__dense_activation act)
{
    tf__linear(y, x, w, b, n, out, in); /* (n, out) */
    for (size_t i = 0; act != TF_DENSE_IDENTITY && i < n * out; i++)
        y[i] = activate(y[i], act);
}
