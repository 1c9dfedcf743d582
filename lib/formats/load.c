/* load.c — the public API over checkpoints: load and inspect (save.c saves). */
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "checkpoint.h"
#include "encoder.h"
#include "error.h"

const tf_load_options tf__load_options_defaults = {
    .struct_size = sizeof(tf_load_options),
    .n_heads = 0,
    .activation = -1,
    .norm_placement = -1,
    .layer_norm_eps = 0.0f,
};

void tf_load_options_init_sized(tf_load_options *opts, size_t struct_size)
{
    tf__abi_init(opts, struct_size, &tf__load_options_defaults, sizeof tf__load_options_defaults);
}

void(tf_load_options_init)(tf_load_options *opts)
{
    tf_load_options_init_sized(opts, TF_LOAD_OPTIONS_SIZE_0_1);
}

tf_status tf_encoder_load(const char *path, const tf_load_options *opts, tf_encoder **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf__checkpoint ck;
    tf_status s = tf__checkpoint_open(&ck, path, opts);
    if (s)
        return s;
    s = tf__encoder_new(&ck.cfg, out);
    if (s == TF_OK)
        tf__checkpoint_fill(&ck, &(*out)->weights);
    tf__checkpoint_close(&ck);
    return s;
}

/* ---- Inspecting ------------------------------------------------------------ */

struct tf_model_info {
    tf__checkpoint ck;
};

tf_status tf_model_inspect(const char *path, const tf_load_options *opts, tf_model_info **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_model_info *info = tf__calloc(1, sizeof *info);
    if (!info)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the model info");
    tf_status s = tf__checkpoint_open(&info->ck, path, opts);
    if (s) {
        tf__free(info);
        return s;
    }
    *out = info;
    return TF_OK;
}

void tf_model_info_destroy(tf_model_info *info)
{
    if (!info)
        return;
    tf__checkpoint_close(&info->ck);
    tf__free(info);
}

const char *tf_model_info_format(const tf_model_info *info)
{
    return info ? tf__checkpoint_format_name(&info->ck) : "";
}

tf_status tf_model_info_config(const tf_model_info *info, tf_config *cfg)
{
    if (!info || !cfg)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "config" : "info");
    return tf__abi_write(cfg, &info->ck.cfg, sizeof info->ck.cfg, TF_CONFIG_SIZE_0_1, "config");
}

size_t tf_model_info_tensor_count(const tf_model_info *info)
{
    return info ? info->ck.file.n_tensors : 0;
}

tf_status tf_model_info_tensor_sized(const tf_model_info *info, size_t index, tf_file_tensor *out,
                                     size_t struct_size)
{
    if (!info || !out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", info ? "out" : "info");
    if (index >= info->ck.file.n_tensors)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "tensor index %zu: the file has %zu tensors",
                        index, info->ck.file.n_tensors);
    const tf__st_tensor *t = &info->ck.file.tensors[index];
    const tf__mapping *m = &info->ck.map[index];
    tf_file_tensor ft = {
        .struct_size = sizeof ft,
        .name = t->name,
        .dtype = tf__dtype_name(t->dtype),
        .rank = t->rank,
        .maps_to = m->dest[0] ? m->dest : NULL,
        .parts = m->dest[0] ? m->parts : 0,
    };
    for (int32_t i = 0; i < t->rank; i++)
        ft.dims[i] = t->dims[i];
    /* the size comes from the caller's sizeof, not from *out */
    if (struct_size >= sizeof(size_t))
        memcpy(out, &struct_size, sizeof struct_size);
    return tf__abi_write(out, &ft, sizeof ft, TF_FILE_TENSOR_SIZE_0_1, "tensor");
}

tf_status(tf_model_info_tensor)(const tf_model_info *info, size_t index, tf_file_tensor *out)
{
    return tf_model_info_tensor_sized(info, index, out, TF_FILE_TENSOR_SIZE_0_1);
}
