/* extra_tensors.c — reading one tensor of a safetensors file by name. */
#include "extra_tensors.h"

#include <string.h>

#include "alloc.h"
#include "checkpoint.h"
#include "error.h"
#include "file.h"

static const tf__st_tensor *find(const tf__st_file *f, const char *name)
{
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return &f->tensors[i];
    return NULL;
}

int tf__extra_tensor_exists(const tf__st_file *f, const char *name)
{
    return find(f, name) != NULL;
}

static int same_shape(const tf__st_tensor *t, int32_t rank, const int64_t *dims)
{
    if (t->rank != rank)
        return 0;
    for (int32_t i = 0; i < rank; i++)
        if (t->dims[i] != dims[i])
            return 0;
    return 1;
}

tf_status tf__extra_tensor_read(const tf__st_file *f, const char *name, int32_t rank,
                                const int64_t *dims, const char *label, const char *why,
                                float **out)
{
    *out = NULL;
    const tf__st_tensor *t = find(f, name);
    char want[96], got[96];
    tf__format_shape(want, sizeof want, rank, dims);
    if (!t)
        return tf__fail(TF_ERR_FORMAT, "%s: missing tensor '%s' %s (%s)", label, name, want, why);
    if (!same_shape(t, rank, dims)) {
        tf__format_shape(got, sizeof got, t->rank, t->dims);
        return tf__fail(TF_ERR_SHAPE, "%s: %s: expected %s (%s), got %s", label, name, want, why,
                        got);
    }
    tf_status s = tf__checkpoint_check_values(t);
    if (s)
        return s;
    if (!(*out = tf__malloc((t->count ? t->count : 1) * sizeof **out)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %s", name);
    tf__checkpoint_convert(*out, t);
    return TF_OK;
}

tf_status tf__dense_linear_read(const tf__st_file *f, int64_t out, int64_t in, int bias,
                                const char *label, const char *config, float **w, float **b)
{
    char *why = NULL;
    tf_status s = tf__format_alloc(&why, "out_features %d, in_features %d in %s", (int)out, (int)in,
                                   config);
    const int64_t w_dims[2] = {out, in}, b_dims[1] = {out};
    if (s == TF_OK)
        s = tf__extra_tensor_read(f, "linear.weight", 2, w_dims, label, why, w);
    if (s == TF_OK && bias)
        s = tf__extra_tensor_read(f, "linear.bias", 1, b_dims, label, why, b);
    if (s == TF_OK && !bias && tf__extra_tensor_exists(f, "linear.bias"))
        s = tf__fail(TF_ERR_FORMAT, "%s: has linear.bias, but %s says bias false", label, config);
    tf__free(why);
    return s;
}
