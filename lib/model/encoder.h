/* encoder.h — the handle behind the opaque tf_encoder. */
#ifndef TF_ENCODER_H
#define TF_ENCODER_H

#include <stdatomic.h>
#include <stdbool.h>

#include "tfenc.h"
#include "weights.h"
#include "workspace.h"

struct tf_encoder {
    tf_config cfg;       /* validated */
    tf__weights weights; /* owned */
    /* The scratch of forward calls that bring no workspace: the one such
     * call that claims it (spare_busy) uses it, grown to the largest seen,
     * and it is kept until the handle is destroyed (a fresh scratch per
     * call costs its page faults every time: 110 ms of a 270 ms BERT-base
     * layer at T = 2048 on this project's VM). Calls that find it claimed
     * allocate their own. State behind the const handle of a forward call,
     * guarded by spare_busy. */
    tf_workspace spare;
    atomic_bool spare_busy;
};

/* A handle for a validated config with its weight block allocated but not
 * yet filled. */
tf_status tf__encoder_new(const tf_config *cfg, tf_encoder **out);

#endif
