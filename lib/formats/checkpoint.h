/* checkpoint.h — a checkpoint file understood: its family (hf_family.h),
 * where each of its tensors goes, and the configuration it implies, all checked before
 * anything is allocated for its weights. */
#ifndef TF_CHECKPOINT_H
#define TF_CHECKPOINT_H

#include "safetensors.h"
#include "tfenc.h"
#include "weights.h"

/* Every load option at "from the file" (load.c). */
extern const tf_load_options tf_load_options_defaults;

/* Where one tensor of the file goes. */
typedef struct tf_mapping {
    char dest[TF_TENSOR_NAME_MAX]; /* the library's tensor, "" = ignored */
    int32_t parts;                 /* 1; 2: up and gate stacked along dim 0; 3: q,
                                      k and v stacked */
    int32_t swap_halves;           /* parts 2: the file stacks gate before up */
} tf_mapping;

struct tf_hf_family;

typedef struct tf_checkpoint {
    const struct tf_hf_family *family; /* whose file it is (hf_family.h): a Hugging Face
                                          architecture's, PyTorch's or libtfenc's */
    tf_st_file file;
    tf_mapping *map;           /* [file.n_tensors] */
    tf_config cfg;             /* inferred and validated */
    const char *prefix;        /* the family's base_prefix ("bert.") when the names
                                  carry it, else "" */
    int single_layer;          /* one layer without "<layer_prefix>{i}."
                                  (tf_hf_family.single_layer) */
} tf_checkpoint;

/* Opens path (a .safetensors file, or a directory with model.safetensors
 * and config.json), infers the configuration and checks every tensor: its
 * shape, its dtype, that its values are finite, and that each weight of the
 * model comes from exactly one of them. After this nothing can go wrong but
 * allocating the weights. */
tf_status tf_checkpoint_open(tf_checkpoint *ck, const char *path, const tf_load_options *opts);

/* The same from a safetensors file already parsed into ck->file (the rest
 * of *ck zeroed) and, for a Hugging Face model, its config.json (or NULL):
 * what tf_checkpoint_open does after reading the files. On failure ck is
 * closed. */
struct tf_hf_config;
tf_status tf_checkpoint_understand(tf_checkpoint *ck, const struct tf_hf_config *json,
                                   const tf_load_options *opts);

void tf_checkpoint_close(tf_checkpoint *ck);

/* The family's format: "huggingface-bert", "pytorch-transformer-encoder",
 * "tfenc"... */
const char *tf_checkpoint_format_name(const tf_checkpoint *ck);

/* What a family's infer hook (hf_family.h) asks of the mapped tensors,
 * named by the library's names (dest):
 * dims[axis] of the 2-D tensor mapped to dest, which must exist (what: the
 * config field it gives, for the message); along axis 0 one part's (Wqkv
 * [3D, D] gives D). */
tf_status tf_checkpoint_dim(const tf_checkpoint *ck, const char *dest, const char *what,
                            int axis, int32_t *out);

/* 1 if any tensor maps to a name that starts with `start` and ends with
 * `end`: a part of the model (a LayerNorm, the pooler, the biases) is there
 * when any of its tensors is, and the layout check then names each of its
 * tensors that is missing. */
int32_t tf_checkpoint_has_part(const tf_checkpoint *ck, const char *start, const char *end);

/* One more than the highest layer index of the mapped names; 0: none. */
int32_t tf_checkpoint_count_layers(const tf_checkpoint *ck);

/* Copies (converting to float32) every mapped tensor into w, laid out and
 * allocated for ck->cfg. */
void tf_checkpoint_fill(const tf_checkpoint *ck, tf_weights *w);

/* src holds float values (F32, F16 or BF16), all finite: else the error
 * names it (and the first element that is not). */
tf_status tf_checkpoint_check_values(const tf_st_tensor *src);

/* dst (src->count) = src's values as float32. */
void tf_checkpoint_convert(float *dst, const tf_st_tensor *src);

#endif
