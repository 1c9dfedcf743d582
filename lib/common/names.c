/* names.c — the one table of names of every public enum: what metadata,
 * the CLI and the bindings print and parse. */
#include <string.h>

#include "names.h"

static const char *const activation_names[] = {
    [TF_ACTIVATION_GELU] = "gelu",
    [TF_ACTIVATION_GELU_TANH] = "gelu_tanh",
    [TF_ACTIVATION_RELU] = "relu",
    [TF_ACTIVATION_SILU] = "silu",
    [TF_ACTIVATION_QUICK_GELU] = "quick_gelu",
};
_Static_assert(sizeof activation_names / sizeof *activation_names == TF_ACTIVATION_COUNT,
               "a name for every tf_activation");

static const char *const position_names[] = {
    [TF_POSITION_NONE] = "none",       [TF_POSITION_SINUSOIDAL] = "sinusoidal",
    [TF_POSITION_LEARNED] = "learned", [TF_POSITION_ROTARY] = "rotary",
    [TF_POSITION_ALIBI] = "alibi",
};
_Static_assert(sizeof position_names / sizeof *position_names == TF_POSITION_COUNT,
               "a name for every tf_position_kind");

static const char *const norm_placement_names[] = {
    [TF_NORM_POST] = "post",
    [TF_NORM_PRE] = "pre",
};
_Static_assert(sizeof norm_placement_names / sizeof *norm_placement_names == TF_NORM_COUNT,
               "a name for every tf_norm_placement");

static const char *const pooling_names[] = {
    [TF_POOLING_CLS] = "cls",
    [TF_POOLING_MEAN] = "mean",
    [TF_POOLING_MAX] = "max",
    [TF_POOLING_MEAN_SQRT_LEN] = "mean_sqrt_len_tokens",
    [TF_POOLING_WEIGHTED_MEAN] = "weightedmean",
    [TF_POOLING_LAST_TOKEN] = "lasttoken",
};
_Static_assert(sizeof pooling_names / sizeof *pooling_names == TF_POOLING_COUNT,
               "a name for every tf_pooling");

static const char *const pipeline_kind_names[] = {
    [TF_PIPELINE_EMBEDDING] = "embedding",
    [TF_PIPELINE_CROSS_ENCODER] = "cross-encoder",
    [TF_PIPELINE_CLASSIFIER] = "classifier",
    [TF_PIPELINE_TOKEN_CLASSIFIER] = "token-classifier",
    [TF_PIPELINE_FILL_MASK] = "fill-mask",
    [TF_PIPELINE_SPARSE] = "sparse-embedding",
    [TF_PIPELINE_MULTI_VECTOR] = "multi-vector",
    [TF_PIPELINE_IMAGE_EMBEDDING] = "image-embedding",
    [TF_PIPELINE_IMAGE_CLASSIFIER] = "image-classifier",
};
_Static_assert(sizeof pipeline_kind_names / sizeof *pipeline_kind_names == TF_PIPELINE_KIND_COUNT,
               "a name for every tf_pipeline_kind");

static const char *const precision_names[] = {
    [TF_PRECISION_FLOAT32] = "float32", [TF_PRECISION_INT8] = "int8",
    [TF_PRECISION_UINT8] = "uint8",     [TF_PRECISION_BINARY] = "binary",
    [TF_PRECISION_UBINARY] = "ubinary",
};
_Static_assert(sizeof precision_names / sizeof *precision_names == TF_PRECISION_COUNT,
               "a name for every tf_precision");

static const char *const status_names[] = {
    [TF_OK] = "TF_OK",
    [TF_ERR_INVALID_ARGUMENT] = "TF_ERR_INVALID_ARGUMENT",
    [TF_ERR_SHAPE] = "TF_ERR_SHAPE",
    [TF_ERR_OUT_OF_MEMORY] = "TF_ERR_OUT_OF_MEMORY",
    [TF_ERR_IO] = "TF_ERR_IO",
    [TF_ERR_FORMAT] = "TF_ERR_FORMAT",
    [TF_ERR_UNSUPPORTED] = "TF_ERR_UNSUPPORTED",
    [TF_ERR_NOT_FOUND] = "TF_ERR_NOT_FOUND",
};
_Static_assert(sizeof status_names / sizeof *status_names == TF_STATUS_COUNT,
               "a name for every tf_status");

static const char *name_of(const char *const *names, int32_t count, int32_t value)
{
    return value >= 0 && value < count ? names[value] : NULL;
}

static int32_t value_of(const char *const *names, int32_t count, const char *name)
{
    if (name)
        for (int32_t i = 0; i < count; i++)
            if (strcmp(name, names[i]) == 0)
                return i;
    return -1;
}

const char *tf_activation_name(int32_t activation)
{
    return name_of(activation_names, TF_ACTIVATION_COUNT, activation);
}
int32_t tf_activation_from_name(const char *name)
{
    return value_of(activation_names, TF_ACTIVATION_COUNT, name);
}
const char *tf_position_name(int32_t position)
{
    return name_of(position_names, TF_POSITION_COUNT, position);
}
int32_t tf_position_from_name(const char *name)
{
    return value_of(position_names, TF_POSITION_COUNT, name);
}
const char *tf_norm_placement_name(int32_t placement)
{
    return name_of(norm_placement_names, TF_NORM_COUNT, placement);
}
int32_t tf_norm_placement_from_name(const char *name)
{
    return value_of(norm_placement_names, TF_NORM_COUNT, name);
}
const char *tf_pooling_name(int32_t pooling)
{
    return name_of(pooling_names, TF_POOLING_COUNT, pooling);
}
int32_t tf_pooling_from_name(const char *name)
{
    return value_of(pooling_names, TF_POOLING_COUNT, name);
}
const char *tf_pipeline_kind_name(int32_t kind)
{
    return name_of(pipeline_kind_names, TF_PIPELINE_KIND_COUNT, kind);
}
const char *tf_precision_name(int32_t precision)
{
    return name_of(precision_names, TF_PRECISION_COUNT, precision);
}
int32_t tf_precision_from_name(const char *name)
{
    return value_of(precision_names, TF_PRECISION_COUNT, name);
}

const char *tf_status_name(tf_status status)
{
    const char *name = name_of(status_names, TF_STATUS_COUNT, (int32_t)status);
    return name ? name : "TF_ERR_UNKNOWN";
}
int32_t tf_status_from_name(const char *name)
{
    return value_of(status_names, TF_STATUS_COUNT, name);
}
