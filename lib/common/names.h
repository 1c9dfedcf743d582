/* names.h — how many values each public enum has: one more than its last.
 * A value added to an enum of tfenc.h moves its count here; names.c's static
 * asserts then ask for its name, and config validation accepts it. */
#ifndef TF_NAMES_H
#define TF_NAMES_H

#include "tfenc.h"

enum {
    TF_ACTIVATION_COUNT = TF_ACTIVATION_QUICK_GELU + 1,
    TF_POSITION_COUNT = TF_POSITION_ALIBI + 1,
    TF_NORM_COUNT = TF_NORM_PRE + 1,
    TF_POOLING_COUNT = TF_POOLING_LAST_TOKEN + 1,
    TF_PIPELINE_KIND_COUNT = TF_PIPELINE_IMAGE_CLASSIFIER + 1,
    TF_PRECISION_COUNT = TF_PRECISION_UBINARY + 1,
    TF_STATUS_COUNT = TF_ERR_NOT_FOUND + 1,
};

#endif
