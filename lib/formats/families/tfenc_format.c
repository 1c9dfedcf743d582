/* tfenc_format.c — libtfenc's own files (tf_encoder_save, save.c): the library's
 * tensor names (model/weights.c), each mapped to itself, and every config
 * field in __metadata__ (metadata.h), with "format" = "tfenc"
 * (TF_METADATA_FORMAT), which is also the format tf_model_info_format names. */
#include "checkpoint.h"
#include "hf_family.h"
#include "metadata.h"

static tf_status infer(const tf__checkpoint *ck, tf_config *c)
{
    return tf__metadata_read_config(&ck->file, c);
}

const tf__hf_family tf__family_tfenc = {
    .format = TF_METADATA_FORMAT,
    .base_prefix = "",
    .layer_prefix = "layers.",
    .top = NULL, /* the library's own names */
    .layer = NULL,
    .metadata_format = TF_METADATA_FORMAT,
    .infer = infer,
    .unrecorded = "its __metadata__ does not give it",
    .example = "a file written by tf_encoder_save (__metadata__ format = tfenc)",
};
