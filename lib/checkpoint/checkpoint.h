/* checkpoint.h — a checkpoint file understood: its format, where each of
 * its tensors goes, and the configuration it implies, all checked before
 * anything is allocated for its weights. */
#ifndef TF_CHECKPOINT_H
#define TF_CHECKPOINT_H

#include "safetensors.h"
#include "tfenc.h"
#include "weights.h"

typedef enum tf_format {
    TF_FORMAT_TFENC,       /* written by tf_encoder_save */
    TF_FORMAT_HF,          /* Hugging Face, of a family of hf_family.h */
    TF_FORMAT_PYTORCH      /* nn.TransformerEncoder(Layer) state_dict */
} tf_format;


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
    tf_format format;
    const struct tf_hf_family *family; /* TF_FORMAT_HF: which one */
    tf_st_file file;
    tf_mapping *map;           /* [file.n_tensors] */
    tf_config cfg;             /* inferred and validated */
    const char *prefix;        /* the family's base_prefix ("bert.") when the names
                                  carry it, else "" */
    int single_layer;          /* a PyTorch layer without "layers.{i}." */
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

/* "huggingface-bert" (the family's), "pytorch-transformer-encoder" or "tfenc". */
const char *tf_checkpoint_format_name(const tf_checkpoint *ck);

/* Copies (converting to float32) every mapped tensor into w, laid out and
 * allocated for ck->cfg. */
void tf_checkpoint_fill(const tf_checkpoint *ck, tf_weights *w);

/* src holds float values (F32, F16 or BF16), all finite: else the error
 * names it (and the first element that is not). */
tf_status tf_checkpoint_check_values(const tf_st_tensor *src);

/* dst (src->count) = src's values as float32. */
void tf_checkpoint_convert(float *dst, const tf_st_tensor *src);

#endif
