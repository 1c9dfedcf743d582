/* shape_text.h — a tensor's shape as the tables of tfenc print it. */
#ifndef TFENC_SHAPE_TEXT_H
#define TFENC_SHAPE_TEXT_H

#include <stdint.h>

#include "tfenc.h"

/* "[" + up to TF_MAX_RANK dims of 20 digits each after ", " + "]" */
typedef struct shape_text {
    char text[2 + TF_MAX_RANK * 22];
} shape_text;

/* "[1, 5, 512]" of dims[0..rank), rank <= TF_MAX_RANK. */
shape_text shape_text_of(const int64_t *dims, int32_t rank);

#endif
