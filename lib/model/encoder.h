/* encoder.h — the handle behind the opaque tf_encoder. */
#ifndef TF_ENCODER_H
#define TF_ENCODER_H

#include "tfenc.h"
#include "weights.h"

struct tf_encoder {
    tf_config cfg;      /* validated */
    tf_weights weights; /* owned */
};

/* A handle for a validated config with its weight block allocated but not
 * yet filled. */
tf_status tf_encoder_new(const tf_config *cfg, tf_encoder **out);

#endif
