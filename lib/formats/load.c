/* load.c — the public API over checkpoints: load and inspect (save.c saves). */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "checkpoint.h"
#include "encoder.h"
#include "error.h"

const tf_load_options tf_load_options_defaults = {
    .struct_size = sizeof(tf_load_options),
    .n_heads = 0,
    .activation = -1,
    .norm_placement = -1,
    .layer_norm_eps = 0.0f,
};

void tf_load_options_init_sized(tf_load_options *opts, size_t struct_size)
{
    tf_abi_init(opts, struct_size, &tf_load_options_defaults, sizeof tf_load_options_defaults);
}

void (tf_load_options_init)(tf_load_options *opts)
{
    tf_load_options_init_sized(opts, TF_LOAD_OPTIONS_SIZE_0_1);
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
    return info ? tf_checkpoint_format_name(&info->ck) : "";
}

tf_status tf_model_info_config(const tf_model_info *info, tf_config *cfg)
{
    if (!info || !cfg)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "config" : "info");
    return tf_abi_write(cfg, &info->ck.cfg, sizeof info->ck.cfg, TF_CONFIG_SIZE_0_1, "config");
}

size_t tf_model_info_tensor_count(const tf_model_info *info)
{
    return info ? info->ck.file.n_tensors : 0;
}

tf_status tf_model_info_tensor_sized(const tf_model_info *info, size_t index, tf_file_tensor *out,
                                     size_t struct_size)
{
    if (!info || !out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "out" : "info");
    if (index >= info->ck.file.n_tensors)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "tensor index %zu: the file has %zu tensors",
                       index, info->ck.file.n_tensors);
    const tf_st_tensor *t = &info->ck.file.tensors[index];
    const tf_mapping *m = &info->ck.map[index];
    tf_file_tensor ft = {
        .struct_size = sizeof ft,
        .name = t->name,
        .dtype = tf_dtype_name(t->dtype),
        .rank = t->rank,
        .maps_to = m->dest[0] ? m->dest : NULL,
        .parts = m->dest[0] ? m->parts : 0,
    };
    for (int32_t i = 0; i < t->rank; i++)
        ft.dims[i] = t->dims[i];
    /* the size comes from the caller's sizeof, not from *out */
    if (struct_size >= sizeof(size_t))
        memcpy(out, &struct_size, sizeof struct_size);
    return tf_abi_write(out, &ft, sizeof ft, TF_FILE_TENSOR_SIZE_0_1, "tensor");
}

tf_status (tf_model_info_tensor)(const tf_model_info *info, size_t index, tf_file_tensor *out)
{
    return tf_model_info_tensor_sized(info, index, out, TF_FILE_TENSOR_SIZE_0_1);
}
