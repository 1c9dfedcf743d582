/* encoder.h — the handle behind the opaque tf_encoder. */
#ifndef TF_ENCODER_H
#define TF_ENCODER_H

#include "tfenc.h"
#include "weights.h"

struct tf_encoder {
    tf_config cfg;      /* validated */
    tf_weights weights; /* owned */
};

#endif
