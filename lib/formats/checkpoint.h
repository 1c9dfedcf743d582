/* checkpoint.h — a checkpoint file understood: its family (hf_family.h),
 * where each of its tensors goes, and the configuration it implies, all checked before
 * anything is allocated for its weights. */
#ifndef TF_CHECKPOINT_H
#define TF_CHECKPOINT_H

#include "safetensors.h"
#include "tfenc.h"
#include "weights.h"

/* Every load option at "from the file" (load.c). */
extern const tf_load_options tf__load_options_defaults;

/* Where one tensor of the file goes. */
typedef struct tf__mapping {
    char dest[TF_TENSOR_NAME_MAX]; /* the library's tensor, "" = ignored */
    int32_t parts;                 /* 1; 2: up and gate stacked along dim 0; 3: q,
                                      k and v stacked */
    int32_t swap_halves;           /* parts 2: the file stacks gate before up */
} tf__mapping;

struct tf__hf_family;

typedef struct tf__checkpoint {
    const struct tf__hf_family *family; /* whose file it is (hf_family.h): a Hugging Face
                                          architecture's, PyTorch's or libtfenc's */
    tf__st_file file;
    tf__mapping *map;   /* [file.n_tensors] */
    tf_config cfg;      /* inferred and validated */
    const char *prefix; /* the family's base_prefix ("bert.") when the names
                                  carry it, else "" */
    int single_layer;   /* one layer without "<layer_prefix>{i}."
                                  (tf__hf_family.single_layer) */
} tf__checkpoint;

/* Opens path (a .safetensors file, or a directory with model.safetensors
 * and config.json), infers the configuration and checks every tensor: its
 * shape, its dtype, that its values are finite, and that each weight of the
 * model comes from exactly one of them. After this nothing can go wrong but
 * allocating the weights. */
tf_status tf__checkpoint_open(tf__checkpoint *ck, const char *path, const tf_load_options *opts);

/* The same from a safetensors file already parsed into ck->file (the rest
 * of *ck zeroed) and, for a Hugging Face model, its config.json (or NULL):
 * what tf__checkpoint_open does after reading the files. On failure ck is
 * closed. */
struct tf__hf_config;
tf_status tf__checkpoint_understand(tf__checkpoint *ck, const struct tf__hf_config *json,
                                    const tf_load_options *opts);

void tf__checkpoint_close(tf__checkpoint *ck);

/* The family's format: "huggingface-bert", "pytorch-transformer-encoder",
 * "tfenc"... */
const char *tf__checkpoint_format_name(const tf__checkpoint *ck);

/* What a family's infer hook (hf_family.h) asks of the mapped tensors,
 * named by the library's names (dest):
 * dims[axis] of the 2-D tensor mapped to dest, which must exist (what: the
 * config field it gives, for the message); along axis 0 one part's (Wqkv
 * [3D, D] gives D). */
tf_status tf__checkpoint_dim(const tf__checkpoint *ck, const char *dest, const char *what, int axis,
                             int32_t *out);

/* 1 if any tensor maps to a name that starts with `start` and ends with
 * `end`: a part of the model (a LayerNorm, the pooler, the biases) is there
 * when any of its tensors is, and the layout check then names each of its
 * tensors that is missing. */
int32_t tf__checkpoint_has_part(const tf__checkpoint *ck, const char *start, const char *end);

/* One more than the highest layer index of the mapped names; 0: none. */
int32_t tf__checkpoint_count_layers(const tf__checkpoint *ck);

/* Copies (converting to float32) every mapped tensor into w, laid out and
 * allocated for ck->cfg. */
void tf__checkpoint_fill(const tf__checkpoint *ck, tf__weights *w);

/* src holds float values (F32, F16 or BF16), all finite: else the error
 * names it (and the first element that is not). */
tf_status tf__checkpoint_check_values(const tf__st_tensor *src);

/* dst (src->count) = src's values as float32. */
void tf__checkpoint_convert(float *dst, const tf__st_tensor *src);

#endif
