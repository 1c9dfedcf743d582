/* save.c — the public API that writes the library's own checkpoints. */
#include "alloc.h"
#include "encoder.h"
#include "error.h"
#include "metadata.h"
#include "safetensors.h"

tf_status tf_encoder_save(const tf_encoder *enc, const char *path)
{
    if (!enc || !path)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", enc ? "path" : "encoder");
    const tf_weights *w = &enc->weights;
    tf_st_entry *entries = tf_calloc(w->n_tensors ? w->n_tensors : 1, sizeof *entries);
    if (!entries)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu entries", path,
                       w->n_tensors);
    for (size_t i = 0; i < w->n_tensors; i++) {
        const tf_tensor *t = &w->tensors[i];
        entries[i] = (tf_st_entry){.name = t->name, .rank = t->rank, .dims = t->dims,
                                   .data = w->block + t->offset, .count = t->count};
    }
    const char *keys[TF_METADATA_FIELDS];
    char values[TF_METADATA_FIELDS][TF_METADATA_VALUE_MAX];
    const char *value_ptrs[TF_METADATA_FIELDS];
    tf_metadata_from_config(&enc->cfg, keys, values);
    for (int i = 0; i < TF_METADATA_FIELDS; i++)
        value_ptrs[i] = values[i];
    tf_status s = tf_st_write(path, entries, w->n_tensors, keys, value_ptrs, TF_METADATA_FIELDS);
    tf_free(entries);
    return s;
}
