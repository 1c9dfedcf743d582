/* abi.c — the struct_size protocol (see abi.h). */
#include "abi.h"

#include <string.h>

#include "error.h"

/* The end of each struct's last field of the version that published it. */
#define END(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))
_Static_assert(END(tf_config, seed) == TF_CONFIG_SIZE_0_1, "tf_config's 0.1.0 fields");
_Static_assert(END(tf_encode_options, pad_left) == TF_ENCODE_OPTIONS_SIZE_0_4,
               "tf_encode_options' 0.4.0 fields");
_Static_assert(END(tf_forward_args, trace_user_data) == TF_FORWARD_ARGS_SIZE_0_1,
               "tf_forward_args' 0.1.0 fields");
_Static_assert(offsetof(tf_forward_args, n_threads) >= TF_FORWARD_ARGS_SIZE_0_1,
               "fields added after 0.1.0 start past its size");
_Static_assert(END(tf_load_options, layer_norm_eps) == TF_LOAD_OPTIONS_SIZE_0_1,
               "tf_load_options' 0.1.0 fields");
_Static_assert(END(tf_tokenizer_options, pad_token) == TF_TOKENIZER_OPTIONS_SIZE_0_1,
               "tf_tokenizer_options' 0.1.0 fields");
_Static_assert(END(tf_file_tensor, parts) <= TF_FILE_TENSOR_SIZE_0_1 &&
                   sizeof(tf_file_tensor) >= TF_FILE_TENSOR_SIZE_0_1,
               "tf_file_tensor's 0.1.0 fields, and its padding");
_Static_assert(END(tf_runtime_info, max_threads) == TF_RUNTIME_INFO_SIZE_0_3,
               "tf_runtime_info's 0.3.0 fields");
_Static_assert(END(tf_pipeline_options, truncation_error) == TF_PIPELINE_OPTIONS_SIZE_0_3,
               "tf_pipeline_options' 0.3.0 fields");
_Static_assert(END(tf_pipeline_args, truncated) == TF_PIPELINE_ARGS_SIZE_0_3,
               "tf_pipeline_args' 0.3.0 fields");
_Static_assert(offsetof(tf_pipeline_args, dimensions_layer_norm) >= TF_PIPELINE_ARGS_SIZE_0_3,
               "tf_pipeline_args' fields added after 0.3.0 start past its size");
_Static_assert(END(tf_hub_options, progress_user_data) == TF_HUB_OPTIONS_SIZE_0_4,
               "tf_hub_options' 0.4.0 fields");
_Static_assert(offsetof(tf_pipeline_args, out_len) >= TF_PIPELINE_ARGS_SIZE_0_4,
               "tf_pipeline_args.out_len starts past the struct's size without it");
_Static_assert(END(tf_image_args, first_index) == TF_IMAGE_ARGS_SIZE_0_5,
               "tf_image_args' 0.5.0 fields");

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

void tf__abi_init(void *caller, size_t caller_size, const void *defaults, size_t lib_size)
{
    if (!caller || caller_size < sizeof(size_t) || caller_size > TF_ABI_MAX_STRUCT_SIZE)
        return;
    const size_t common = min_size(caller_size, lib_size);
    memcpy(caller, defaults, common);
    memset((char *)caller + common, 0, caller_size - common);
    memcpy(caller, &caller_size, sizeof caller_size);
}

static tf_status check_struct_size(size_t size, size_t min, const char *what)
{
    if (size < min || size > TF_ABI_MAX_STRUCT_SIZE)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s.struct_size: expected %zu..%d (the struct's size in the caller's "
                        "tfenc.h; set by its _init), got %zu",
                        what, min, TF_ABI_MAX_STRUCT_SIZE, size);
    return TF_OK;
}

tf_status tf__abi_read(void *dst, size_t lib_size, const void *src, size_t min, const char *what)
{
    size_t size;
    memcpy(&size, src, sizeof size);
    tf_status s = check_struct_size(size, min, what);
    if (s)
        return s;
    for (size_t i = lib_size; i < size; i++)
        if (((const unsigned char *)src)[i])
            return tf__fail(TF_ERR_UNSUPPORTED,
                            "%s: the caller's struct is %zu bytes and sets byte %zu, past the "
                            "%zu this library (%s) knows: a field of a newer tfenc.h",
                            what, size, i, lib_size, tf_version_string());
    memcpy(dst, src, min_size(size, lib_size));
    memcpy(dst, &lib_size, sizeof lib_size);
    return TF_OK;
}

tf_status tf__abi_write(void *dst, const void *src, size_t lib_size, size_t min, const char *what)
{
    size_t size;
    memcpy(&size, dst, sizeof size);
    tf_status s = check_struct_size(size, min, what);
    if (s)
        return s;
    const size_t common = min_size(size, lib_size);
    memcpy(dst, src, common);
    memset((char *)dst + common, 0, size - common);
    memcpy(dst, &size, sizeof size);
    return TF_OK;
}

size_t tf_struct_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {
        {"tf_config", sizeof(tf_config)},
        {"tf_forward_args", sizeof(tf_forward_args)},
        {"tf_load_options", sizeof(tf_load_options)},
        {"tf_tokenizer_options", sizeof(tf_tokenizer_options)},
        {"tf_file_tensor", sizeof(tf_file_tensor)},
        {"tf_trace_event", sizeof(tf_trace_event)},
        {"tf_runtime_info", sizeof(tf_runtime_info)},
        {"tf_pipeline_options", sizeof(tf_pipeline_options)},
        {"tf_pipeline_args", sizeof(tf_pipeline_args)},
        {"tf_encode_options", sizeof(tf_encode_options)},
        {"tf_hub_options", sizeof(tf_hub_options)},
        {"tf_hub_progress", sizeof(tf_hub_progress)},
        {"tf_image_args", sizeof(tf_image_args)},
    };
    for (size_t i = 0; name && i < sizeof sizes / sizeof *sizes; i++)
        if (strcmp(name, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}
