/* metadata.h — the configuration as safetensors __metadata__ strings: one
 * key per tf_config field, written by tf_encoder_save and read back. */
#ifndef TF_METADATA_H
#define TF_METADATA_H

#include "safetensors.h"
#include "tfenc.h"

enum { TF_METADATA_FIELDS = 36, TF_METADATA_VALUE_MAX = 32 };

/* __metadata__ "format" of the library's own files (families/tfenc_format.c). */
#define TF_METADATA_FORMAT "tfenc"

/* keys[i] -> values[i] for every field (and "format" = TF_METADATA_FORMAT). */
void tf__metadata_from_config(const tf_config *c, const char *keys[TF_METADATA_FIELDS],
                              char values[TF_METADATA_FIELDS][TF_METADATA_VALUE_MAX]);

/* Every field of a libtfenc file's metadata into c; all must be present,
 * except those 0.4.0 added (absent: 0). */
tf_status tf__metadata_read_config(const tf__st_file *f, tf_config *c);

/* The fields a PyTorch checkpoint may carry (n_heads, activation,
 * norm_first, layer_norm_eps) into c, those present only. */
tf_status tf__metadata_read_overrides(const tf__st_file *f, tf_config *c);

#endif
