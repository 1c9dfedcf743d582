/* extra_tensors.h — the tensors around an encoder (a classifier, a Dense
 * module's linear) read by name into float32 buffers of their own. */
#ifndef TF_EXTRA_TENSORS_H
#define TF_EXTRA_TENSORS_H

#include "safetensors.h"
#include "tfenc.h"

/* *out (tf__malloc'ed, shape (rank, dims)) = tensor `name` of f, which must
 * have that shape, a float dtype and finite values. Messages start with
 * label (the file) and say `why` it has that shape: "classifier.weight:
 * expected [3, 16] (3 labels in config.json id2label), got [4, 16]". */
tf_status tf__extra_tensor_read(const tf__st_file *f, const char *name, int32_t rank,
                                const int64_t *dims, const char *label, const char *why,
                                float **out);

/* A sentence-transformers Dense module's linear.weight [out, in] into *w
 * and, when bias, linear.bias [out] into *b, from f (label names the file;
 * config the module's config.json, which gives out, in and bias): a
 * linear.bias the config says is absent is refused. */
tf_status tf__dense_linear_read(const tf__st_file *f, int64_t out, int64_t in, int bias,
                                const char *label, const char *config, float **w, float **b);

/* 1 if f has a tensor of that name. */
int tf__extra_tensor_exists(const tf__st_file *f, const char *name);

#endif
