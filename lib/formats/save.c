/* save.c — the public API that writes the library's own checkpoints. */
#include "alloc.h"
#include "encoder.h"
#include "error.h"
#include "metadata.h"
#include "safetensors.h"

/* A tensor of the handle's weights, for tf__st_entry's read. */
typedef struct saved_tensor {
    const tf__weights *w;
    const tf__tensor *t;
} saved_tensor;

static void read_tensor(const void *source, size_t first, float *dst, size_t n)
{
    const saved_tensor *st = source;
    tf__weights_get(st->w, st->t, first, dst, n);
}

tf_status tf_encoder_save(const tf_encoder *enc, const char *path)
{
    if (!enc || !path)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", enc ? "path" : "encoder");
    const tf__weights *w = &enc->weights;
    const size_t n = w->n_tensors ? w->n_tensors : 1;
    tf__st_entry *entries = tf__calloc(n, sizeof *entries);
    saved_tensor *sources = tf__calloc(n, sizeof *sources);
    if (!entries || !sources) {
        tf__free(entries);
        tf__free(sources);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu entries", path,
                        w->n_tensors);
    }
    for (size_t i = 0; i < w->n_tensors; i++) {
        const tf__tensor *t = &w->tensors[i];
        sources[i] = (saved_tensor){w, t};
        entries[i] = (tf__st_entry){.name = t->name,
                                    .rank = t->rank,
                                    .dims = t->dims,
                                    .count = t->count,
                                    .read = read_tensor,
                                    .source = &sources[i]};
        if (!t->transposed_ld) /* as stored: written straight from the block */
            entries[i].data = w->block + t->offset;
    }
    const char *keys[TF_METADATA_FIELDS];
    char values[TF_METADATA_FIELDS][TF_METADATA_VALUE_MAX];
    const char *value_ptrs[TF_METADATA_FIELDS];
    tf__metadata_from_config(&enc->cfg, keys, values);
    for (int i = 0; i < TF_METADATA_FIELDS; i++)
        value_ptrs[i] = values[i];
    tf_status s = tf__st_write(path, entries, w->n_tensors, keys, value_ptrs, TF_METADATA_FIELDS);
    tf__free(entries);
    tf__free(sources);
    return s;
}
