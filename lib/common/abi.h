/* abi.h — the struct_size protocol of tfenc.h's growing structs, written
 * once. The caller's struct_size is the size of the struct its header
 * declared: the library reads and writes min(that, its own) bytes, takes
 * defaults for fields the caller does not have, and refuses a newer
 * caller's fields it does not know unless they are zero (their defaults). */
#ifndef TF_ABI_H
#define TF_ABI_H

#include <stddef.h>

#include "tfenc.h"

/* sizeof of each struct as 0.1.0 published it: the smallest struct_size
 * accepted. A struct grows only by fields appended at or past these sizes
 * (never in 0.1.0's trailing padding, which a 0.1.0 caller passes
 * uninitialised); abi.c checks both. */
#define TF_CONFIG_SIZE_0_1 80
#define TF_FORWARD_ARGS_SIZE_0_1 136
#define TF_LOAD_OPTIONS_SIZE_0_1 24
#define TF_TOKENIZER_OPTIONS_SIZE_0_1 64
#define TF_FILE_TENSOR_SIZE_0_1 112
/* ... and of those 0.3.0 added. */
#define TF_RUNTIME_INFO_SIZE_0_3 48
#define TF_PIPELINE_OPTIONS_SIZE_0_3 16
#define TF_PIPELINE_ARGS_SIZE_0_3 72
/* ... and of those 0.4.0 added. */
#define TF_ENCODE_OPTIONS_SIZE_0_4 28
#define TF_HUB_OPTIONS_SIZE_0_4 64
/* ... and of those 0.5.0 added. */
#define TF_IMAGE_ARGS_SIZE_0_5 104
/* tf_pipeline_args as 0.4.0 had it before out_len: the size whose callers
 * are trusted with out's length. */
#define TF_PIPELINE_ARGS_SIZE_0_4 80

/* A struct_size above this is garbage, not a newer header. */
#define TF_ABI_MAX_STRUCT_SIZE 4096

/* Initialises a caller's struct of caller_size bytes from the library's
 * defaults (lib_size bytes): the common bytes are copied, any further bytes
 * zeroed, struct_size set to caller_size. Does nothing for sizes below
 * sizeof(size_t) or above TF_ABI_MAX_STRUCT_SIZE. */
void tf__abi_init(void *caller, size_t caller_size, const void *defaults, size_t lib_size);

/* dst (the library's struct, lib_size bytes, already holding the defaults)
 * takes the caller's fields from src, whose first field is struct_size.
 * Fails, naming `what` ("config", "args", ...) and the sizes, when
 * struct_size is below min_size or garbage, or when src sets a field past
 * lib_size. On success dst->struct_size is lib_size. */
tf_status tf__abi_read(void *dst, size_t lib_size, const void *src, size_t min_size,
                       const char *what);

/* Writes the library's src (lib_size bytes) into the caller's dst, whose
 * struct_size says how large it is: min(struct_size, lib_size) bytes, then
 * zeros up to struct_size; dst keeps its struct_size. Fails, changing
 * nothing, when struct_size is below min_size or garbage. */
tf_status tf__abi_write(void *dst, const void *src, size_t lib_size, size_t min_size,
                        const char *what);

#endif
