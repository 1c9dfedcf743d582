/* dense.h — sentence-transformers' Dense module: y = act(W x + b). */
#ifndef TF_DENSE_H
#define TF_DENSE_H

#include <stddef.h>

typedef enum tf__dense_activation {
    TF_DENSE_IDENTITY, /* torch.nn.modules.linear.Identity */
    TF_DENSE_TANH,     /* torch.nn.modules.activation.Tanh (Dense's default) */
    TF_DENSE_RELU,     /* torch.nn.modules.activation.ReLU */
    TF_DENSE_SIGMOID,  /* torch.nn.modules.activation.Sigmoid */
    TF_DENSE_GELU      /* torch.nn.modules.activation.GELU (erf) */
} tf__dense_activation;

/* y (n, out) = act(x (n, in) . w (out, in)^T + b (out)); b may be NULL. */
void tf__dense_forward(float *y, const float *x, const float *w, const float *b, size_t n,
                       size_t out, size_t in, tf__dense_activation act);

#endif
