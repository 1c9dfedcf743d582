/* tensor.h — a copy of one of an encoder's tensors. Test-only. */
#ifndef TEST_TENSOR_H
#define TEST_TENSOR_H

#include <stdlib.h>

#include "tfenc.h"

/* The tensor `name` (malloc'd, *count floats), or NULL if the model lacks it. */
static inline float *tensor_copy(const tf_encoder *enc, const char *name, size_t *count)
{
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    if (tf_encoder_tensor_shape(enc, name, &rank, dims) != TF_OK)
        return NULL;
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)dims[i];
    float *v = malloc(n * sizeof *v);
    if (v && tf_encoder_get_tensor(enc, name, v, rank, dims) != TF_OK) {
        free(v);
        return NULL;
    }
    *count = n;
    return v;
}

#endif
