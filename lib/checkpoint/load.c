/* load.c — the public API over checkpoints: load and inspect (save.c saves). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checkpoint.h"
#include "encoder.h"
#include "error.h"

void tf_load_options_init(tf_load_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->struct_size = sizeof *opts;
    opts->n_heads = 0;
    opts->activation = -1;
    opts->norm_placement = -1;
    opts->layer_norm_eps = 0.0f;
}

tf_status tf_encoder_load(const char *path, const tf_load_options *opts, tf_encoder **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_checkpoint ck;
    tf_status s = tf_checkpoint_open(&ck, path, opts);
    if (s)
        return s;
    s = tf_encoder_new(&ck.cfg, out);
    if (s == TF_OK)
        tf_checkpoint_fill(&ck, &(*out)->weights);
    tf_checkpoint_close(&ck);
    return s;
}

/* ---- Inspecting ------------------------------------------------------------ */

struct tf_model_info {
    tf_checkpoint ck;
};

tf_status tf_model_inspect(const char *path, const tf_load_options *opts, tf_model_info **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_model_info *info = tf_calloc(1, sizeof *info);
    if (!info)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the model info");
    tf_status s = tf_checkpoint_open(&info->ck, path, opts);
    if (s) {
        tf_free(info);
        return s;
    }
    *out = info;
    return TF_OK;
}

void tf_model_info_destroy(tf_model_info *info)
{
    if (!info)
        return;
    tf_checkpoint_close(&info->ck);
    tf_free(info);
}

const char *tf_model_info_format(const tf_model_info *info)
{
    return info ? tf_format_name(info->ck.format) : "";
}

tf_status tf_model_info_config(const tf_model_info *info, tf_config *cfg)
{
    if (!info || !cfg)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "config" : "info");
    if (cfg->struct_size != sizeof *cfg)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "config.struct_size: expected %zu, got %zu; "
                       "initialise it with tf_config_init()", sizeof *cfg, cfg->struct_size);
    *cfg = info->ck.cfg;
    return TF_OK;
}

size_t tf_model_info_tensor_count(const tf_model_info *info)
{
    return info ? info->ck.file.n_tensors : 0;
}

tf_status tf_model_info_tensor(const tf_model_info *info, size_t index, tf_file_tensor *out)
{
    if (!info || !out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "out" : "info");
    if (index >= info->ck.file.n_tensors)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "tensor index %zu: the file has %zu tensors",
                       index, info->ck.file.n_tensors);
    const tf_st_tensor *t = &info->ck.file.tensors[index];
    const tf_mapping *m = &info->ck.map[index];
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->name = t->name;
    out->dtype = tf_dtype_name(t->dtype);
    out->rank = t->rank;
    for (int32_t i = 0; i < t->rank; i++)
        out->dims[i] = t->dims[i];
    out->maps_to = m->dest[0] ? m->dest : NULL;
    out->parts = m->dest[0] ? m->parts : 0;
    return TF_OK;
}
