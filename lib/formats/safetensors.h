/* safetensors.h — reading and writing the safetensors format:
 *   8 bytes: N, the header length (little-endian u64, at most 100,000,000)
 *   N bytes: a UTF-8 JSON object {"name": {"dtype": "F32", "shape": [..],
 *            "data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}
 *   the data: every tensor's bytes, contiguous from offset 0, no gaps, no
 *            overlaps, nothing after the last one.
 * Every rule is checked; a violation is TF_ERR_FORMAT with what and where.
 * The JSON itself is checked by tf__json_parse (json.h): among others, no key
 * twice in any object (so no tensor twice, no __metadata__ twice) and no
 * \u0000 in any name or value. */
#ifndef TF_SAFETENSORS_H
#define TF_SAFETENSORS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

#define TF_ST_MAX_HEADER 100000000u

typedef enum tf__dtype {
    TF_DTYPE_BOOL,
    TF_DTYPE_U8,
    TF_DTYPE_I8,
    TF_DTYPE_F8_E4M3,
    TF_DTYPE_F8_E5M2,
    TF_DTYPE_I16,
    TF_DTYPE_U16,
    TF_DTYPE_F16,
    TF_DTYPE_BF16,
    TF_DTYPE_I32,
    TF_DTYPE_U32,
    TF_DTYPE_F32,
    TF_DTYPE_I64,
    TF_DTYPE_U64,
    TF_DTYPE_F64,
    TF_DTYPE_COUNT
} tf__dtype;

const char *tf__dtype_name(tf__dtype dtype);

typedef struct tf__st_tensor {
    const char *name; /* owned by the header */
    tf__dtype dtype;
    int32_t rank;
    int64_t dims[TF_MAX_RANK];
    size_t count;              /* elements */
    const unsigned char *data; /* count * dtype size bytes, little-endian, unaligned */
} tf__st_tensor;

typedef struct tf__st_file {
    void *map; /* the mapped file, or NULL */
    size_t map_size;
    cJSON *header;
    const cJSON *metadata;  /* "__metadata__" (an object of strings), or NULL */
    tf__st_tensor *tensors; /* in header order */
    size_t n_tensors;
} tf__st_file;

/* Maps the file at path read-only and parses it. */
tf_status tf__st_open(tf__st_file *f, const char *path);
/* Parses size bytes (which must outlive f); label prefixes messages. */
tf_status tf__st_parse(tf__st_file *f, const unsigned char *bytes, size_t size, const char *label);
void tf__st_close(tf__st_file *f);

/* The metadata value of key, or NULL. */
const char *tf__st_metadata(const tf__st_file *f, const char *key);

/* One float32 tensor to write. */
typedef struct tf__st_entry {
    const char *name;
    int32_t rank;
    const int64_t *dims;
    const float *data; /* (count), or NULL: then read gives the values */
    size_t count;
    /* With data NULL: writes values [first, first + n) into dst. */
    void (*read)(const void *source, size_t first, float *dst, size_t n);
    const void *source;
} tf__st_entry;

/* Writes a safetensors file of float32 tensors with metadata (n_meta
 * key/value pairs, keys[i] -> values[i]) to path, through a temporary file
 * renamed into place, so path is never left half-written. */
tf_status tf__st_write(const char *path, const tf__st_entry *entries, size_t n,
                       const char *const *keys, const char *const *values, size_t n_meta);

#endif
