/* linear.c — PyTorch-layout projection through cblas_sgemm. */
#include "linear.h"

#include <cblas.h>
#include <string.h>

void tf_linear(float *y, const float *x, const float *w, const float *b, size_t n, size_t out,
               size_t in)
{
    if (n == 0)
        return;
    float beta = 0.0f;
    if (b) { /* start C at the bias; the GEMM accumulates onto it */
        for (size_t r = 0; r < n; r++)
            memcpy(y + r * out, b, out * sizeof *b);
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)out, (int)in, 1.0f, x,
                (int)in, w, (int)in, beta, y, (int)out);
}
