/* safetensors.c — a parser that can be trusted with hostile files, and the
 * writer of the library's own files. */
#define _POSIX_C_SOURCE 200809L
#include "safetensors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "file.h"
#include "json.h"
#include "utf8.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors data is little-endian; this reader and writer assume a little-endian host"
#endif

/* The header is an object of objects of arrays: 3 levels; allow a little. */
#define TF_ST_MAX_DEPTH 8

static const struct {
    const char *name;
    size_t size;
} dtypes[TF_DTYPE_COUNT] = {
    [TF_DTYPE_BOOL] = {"BOOL", 1},       [TF_DTYPE_U8] = {"U8", 1},
    [TF_DTYPE_I8] = {"I8", 1},           [TF_DTYPE_F8_E4M3] = {"F8_E4M3", 1},
    [TF_DTYPE_F8_E5M2] = {"F8_E5M2", 1}, [TF_DTYPE_I16] = {"I16", 2},
    [TF_DTYPE_U16] = {"U16", 2},         [TF_DTYPE_F16] = {"F16", 2},
    [TF_DTYPE_BF16] = {"BF16", 2},       [TF_DTYPE_I32] = {"I32", 4},
    [TF_DTYPE_U32] = {"U32", 4},         [TF_DTYPE_F32] = {"F32", 4},
    [TF_DTYPE_I64] = {"I64", 8},         [TF_DTYPE_U64] = {"U64", 8},
    [TF_DTYPE_F64] = {"F64", 8},
};

const char *tf__dtype_name(tf__dtype dtype)
{
    return dtype < TF_DTYPE_COUNT ? dtypes[dtype].name : "?";
}

static int dtype_from_name(const char *name, tf__dtype *out)
{
    for (int i = 0; i < TF_DTYPE_COUNT; i++)
        if (strcmp(name, dtypes[i].name) == 0) {
            *out = (tf__dtype)i;
            return 1;
        }
    return 0;
}

/* Byte offsets of one tensor in the data section, while parsing. */
typedef struct span {
    uint64_t begin, end;
    size_t index;
} span;

static tf_status parse_shape(tf__st_tensor *t, const cJSON *shape, const char *label)
{
    if (!cJSON_IsArray(shape))
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': shape is not an array", label, t->name);
    const int rank = cJSON_GetArraySize(shape);
    if (rank > TF_MAX_RANK)
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': rank %d exceeds the limit of %d", label,
                        t->name, rank, TF_MAX_RANK);
    t->rank = rank;
    t->count = 1;
    int i = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, shape)
    {
        uint64_t d;
        char got[64];
        if (!tf__json_uint(dim, TF_JSON_MAX_EXACT_INT, &d)) {
            tf__json_describe(dim, got, sizeof got);
            return tf__fail(TF_ERR_FORMAT,
                            "%s: tensor '%s': shape[%d] is not an integer in 0..2^53, got %s",
                            label, t->name, i, got);
        }
        t->dims[i++] = (int64_t)d;
        if (!tf__mul_size(t->count, (size_t)d, &t->count))
            return tf__fail(TF_ERR_FORMAT,
                            "%s: tensor '%s': the shape's element count overflows 64 bits", label,
                            t->name);
    }
    return TF_OK;
}

/* One header entry: {"dtype": str, "shape": [...], "data_offsets": [b, e]}. */
static tf_status parse_entry(tf__st_tensor *t, span *sp, const cJSON *entry, const char *label)
{
    t->name = entry->string;
    if (!cJSON_IsObject(entry))
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': entry is not an object", label, t->name);
    const cJSON *dtype = NULL, *shape = NULL, *offsets = NULL, *field;
    cJSON_ArrayForEach(field, entry)
    {
        const cJSON **slot = !strcmp(field->string, "dtype") ? &dtype
            : !strcmp(field->string, "shape")                ? &shape
            : !strcmp(field->string, "data_offsets")         ? &offsets
                                                             : NULL;
        if (!slot)
            return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': unexpected key '%s'", label, t->name,
                            field->string);
        *slot = field; /* once: tf__json_parse refuses a key twice */
    }
    if (!dtype || !shape || !offsets)
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': missing '%s'", label, t->name,
                        !dtype       ? "dtype"
                            : !shape ? "shape"
                                     : "data_offsets");
    char got[64];
    if (!cJSON_IsString(dtype)) {
        tf__json_describe(dtype, got, sizeof got);
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': dtype is not a string, got %s", label,
                        t->name, got);
    }
    if (!dtype_from_name(dtype->valuestring, &t->dtype))
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': unknown dtype '%.*s'", label, t->name,
                        tf__utf8_prefix(dtype->valuestring, 32), dtype->valuestring);
    tf_status s = parse_shape(t, shape, label);
    if (s)
        return s;
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        !tf__json_uint(offsets->child, TF_JSON_MAX_EXACT_INT, &sp->begin) ||
        !tf__json_uint(offsets->child->next, TF_JSON_MAX_EXACT_INT, &sp->end)) {
        tf__json_describe(offsets, got, sizeof got);
        return tf__fail(TF_ERR_FORMAT,
                        "%s: tensor '%s': data_offsets is not [begin, end] of "
                        "integers in 0..2^53, got %s",
                        label, t->name, got);
    }
    size_t nbytes;
    if (!tf__mul_size(t->count, dtypes[t->dtype].size, &nbytes))
        return tf__fail(TF_ERR_FORMAT, "%s: tensor '%s': its byte size overflows 64 bits", label,
                        t->name);
    if (sp->end < sp->begin || sp->end - sp->begin != nbytes) {
        char shape_text[160];
        tf__format_shape(shape_text, sizeof shape_text, t->rank, t->dims);
        return tf__fail(TF_ERR_FORMAT,
                        "%s: tensor '%s': dtype %s and shape %s need %zu bytes, but data_offsets "
                        "[%llu, %llu] hold %lld",
                        label, t->name, dtypes[t->dtype].name, shape_text, nbytes,
                        (unsigned long long)sp->begin, (unsigned long long)sp->end,
                        (long long)(sp->end - sp->begin));
    }
    return TF_OK;
}

static tf_status parse_metadata(tf__st_file *f, const cJSON *meta, const char *label)
{
    if (!cJSON_IsObject(meta))
        return tf__fail(TF_ERR_FORMAT, "%s: __metadata__ is not an object", label);
    const cJSON *item;
    cJSON_ArrayForEach(item, meta)
    {
        char got[64];
        if (!cJSON_IsString(item)) {
            tf__json_describe(item, got, sizeof got);
            return tf__fail(TF_ERR_FORMAT, "%s: __metadata__['%s'] is not a string, got %s", label,
                            item->string, got);
        }
    }
    f->metadata = meta;
    return TF_OK;
}

static int compare_spans(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

/* The tensors' bytes tile the data section exactly: from 0, no gap, no
 * overlap, nothing after the last. Sorts spans. */
static tf_status check_layout(tf__st_file *f, span *spans, uint64_t data_size, const char *label)
{
    for (size_t i = 0; i < f->n_tensors; i++)
        if (spans[i].end > data_size)
            return tf__fail(TF_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets [%llu, %llu] run past the end of the "
                            "data (%llu bytes)",
                            label, f->tensors[spans[i].index].name,
                            (unsigned long long)spans[i].begin, (unsigned long long)spans[i].end,
                            (unsigned long long)data_size);
    qsort(spans, f->n_tensors, sizeof *spans, compare_spans);
    uint64_t expected = 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const span *sp = &spans[i];
        const char *name = f->tensors[sp->index].name;
        if (sp->begin < expected)
            return tf__fail(TF_ERR_FORMAT,
                            "%s: tensor '%s': data_offsets [%llu, %llu] overlap the tensor "
                            "before it (which ends at %llu)",
                            label, name, (unsigned long long)sp->begin, (unsigned long long)sp->end,
                            (unsigned long long)expected);
        if (sp->begin > expected)
            return tf__fail(
                TF_ERR_FORMAT, "%s: data bytes %llu..%llu belong to no tensor (a gap before '%s')",
                label, (unsigned long long)expected, (unsigned long long)sp->begin, name);
        expected = sp->end;
    }
    if (expected != data_size)
        return tf__fail(TF_ERR_FORMAT, "%s: %llu bytes after the last tensor belong to no tensor",
                        label, (unsigned long long)(data_size - expected));
    return TF_OK;
}

static tf_status parse_header(tf__st_file *f, const unsigned char *data, uint64_t data_size,
                              const char *label)
{
    const cJSON *root = f->header, *item;
    if (!cJSON_IsObject(root))
        return tf__fail(TF_ERR_FORMAT, "%s: the header is not a JSON object", label);
    size_t entries = 0;
    cJSON_ArrayForEach(item, root) entries++;
    f->tensors = tf__calloc(entries ? entries : 1, sizeof *f->tensors);
    span *spans = tf__calloc(entries ? entries : 1, sizeof *spans);
    tf_status s = f->tensors && spans
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu tensor entries", label, entries);
    cJSON_ArrayForEach(item, root)
    {
        if (s)
            break;
        if (strcmp(item->string, "__metadata__") == 0) {
            s = parse_metadata(f, item, label);
            continue;
        }
        tf__st_tensor *t = &f->tensors[f->n_tensors];
        spans[f->n_tensors].index = f->n_tensors;
        s = parse_entry(t, &spans[f->n_tensors], item, label);
        if (s == TF_OK)
            f->n_tensors++;
    }
    if (s == TF_OK)
        s = check_layout(f, spans, data_size, label);
    for (size_t i = 0; s == TF_OK && i < f->n_tensors; i++) {
        const span *sp = &spans[i]; /* sorted now; index says whose */
        f->tensors[sp->index].data = data + sp->begin;
    }
    tf__free(spans);
    return s;
}

tf_status tf__st_parse(tf__st_file *f, const unsigned char *bytes, size_t size, const char *label)
{
    memset(f, 0, sizeof *f);
    if (size < 8)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: the file has %zu bytes; a safetensors file starts "
                        "with an 8-byte header length",
                        label, size);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | bytes[i];
    if (n > TF_ST_MAX_HEADER)
        return tf__fail(TF_ERR_FORMAT, "%s: header length %llu exceeds the limit of %u bytes",
                        label, (unsigned long long)n, TF_ST_MAX_HEADER);
    if (n > size - 8)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: header length %llu exceeds the %zu bytes that follow "
                        "it (truncated file?)",
                        label, (unsigned long long)n, size - 8);
    char *where; /* "<label>: header" */
    tf_status s = tf__format_alloc(&where, "%s: header", label);
    if (s == TF_OK)
        s = tf__json_parse((const char *)bytes + 8, (size_t)n, TF_ST_MAX_DEPTH, where, &f->header);
    tf__free(where);
    if (s == TF_OK)
        s = parse_header(f, bytes + 8 + n, size - 8 - n, label);
    if (s != TF_OK) {
        cJSON_Delete(f->header);
        tf__free(f->tensors);
        memset(f, 0, sizeof *f);
    }
    return s;
}

tf_status tf__st_open(tf__st_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    int fd;
    size_t size;
    tf_status s = tf__file_open_read(path, &fd, &size);
    if (s)
        return s;
    void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    const int err = errno;
    close(fd);
    if (size && map == MAP_FAILED)
        return tf__fail(TF_ERR_IO, "%s: cannot map %zu bytes: %s", path, size, strerror(err));
    static const unsigned char empty[1];
    s = tf__st_parse(f, map ? map : empty, size, path);
    if (s != TF_OK) {
        if (map)
            munmap(map, size);
        return s;
    }
    f->map = map;
    f->map_size = size;
    return TF_OK;
}

void tf__st_close(tf__st_file *f)
{
    cJSON_Delete(f->header);
    tf__free(f->tensors);
    if (f->map)
        munmap(f->map, f->map_size);
    memset(f, 0, sizeof *f);
}

const char *tf__st_metadata(const tf__st_file *f, const char *key)
{
    const cJSON *item = f->metadata ? cJSON_GetObjectItemCaseSensitive(f->metadata, key) : NULL;
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* ---- Writing ------------------------------------------------------------- */

/* The header JSON, padded with spaces to a multiple of 8 bytes. */
static char *build_header(const tf__st_entry *entries, size_t n, const char *const *keys,
                          const char *const *values, size_t n_meta, size_t *len)
{
    cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
    int ok = root && meta && cJSON_AddItemToObject(root, "__metadata__", meta);
    if (!ok)
        cJSON_Delete(meta);
    for (size_t i = 0; ok && i < n_meta; i++)
        ok = cJSON_AddStringToObject(meta, keys[i], values[i]) != NULL;
    uint64_t offset = 0;
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *entry = cJSON_AddObjectToObject(root, entries[i].name);
        cJSON *shape = entry ? cJSON_AddArrayToObject(entry, "shape") : NULL;
        cJSON *offsets = NULL;
        ok = entry && shape && cJSON_AddStringToObject(entry, "dtype", "F32");
        for (int32_t d = 0; ok && d < entries[i].rank; d++)
            ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)entries[i].dims[d]));
        if (ok)
            offsets = cJSON_AddArrayToObject(entry, "data_offsets");
        ok = ok && offsets && cJSON_AddItemToArray(offsets, cJSON_CreateNumber((double)offset));
        offset += entries[i].count * sizeof(float);
        ok = ok && cJSON_AddItemToArray(offsets, cJSON_CreateNumber((double)offset));
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return NULL;
    const size_t raw = strlen(text), padded = (raw + 7) / 8 * 8;
    char *header = tf__realloc(text, padded + 1);
    if (!header) {
        tf__free(text);
        return NULL;
    }
    memset(header + raw, ' ', padded - raw);
    header[padded] = '\0';
    *len = padded;
    return header;
}

/* Values an entry without data is written through at a time (64 KiB). */
#define WRITE_CHUNK 16384

/* e's values into w: from e->data, or through buffer (WRITE_CHUNK). */
static tf_status write_values(tf__file_out *w, const tf__st_entry *e, float *buffer)
{
    if (e->data)
        return tf__file_write(w, e->data, e->count * sizeof(float));
    tf_status s = TF_OK;
    for (size_t first = 0; s == TF_OK && first < e->count; first += WRITE_CHUNK) {
        const size_t n = e->count - first < WRITE_CHUNK ? e->count - first : WRITE_CHUNK;
        e->read(e->source, first, buffer, n);
        s = tf__file_write(w, buffer, n * sizeof(float));
    }
    return s;
}

tf_status tf__st_write(const char *path, const tf__st_entry *entries, size_t n,
                       const char *const *keys, const char *const *values, size_t n_meta)
{
    float *buffer = tf__malloc(WRITE_CHUNK * sizeof *buffer);
    if (!buffer)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate a %d-value buffer", path,
                        WRITE_CHUNK);
    size_t len = 0;
    char *header = build_header(entries, n, keys, values, n_meta, &len);
    if (!header) {
        tf__free(buffer);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot build the header", path);
    }
    unsigned char prefix[8];
    for (int i = 0; i < 8; i++)
        prefix[i] = (unsigned char)((uint64_t)len >> (8 * i));
    tf__file_out w;
    tf_status s = tf__file_create(&w, path);
    if (s == TF_OK)
        s = tf__file_write(&w, prefix, sizeof prefix);
    if (s == TF_OK)
        s = tf__file_write(&w, header, len);
    for (size_t i = 0; s == TF_OK && i < n; i++)
        s = write_values(&w, &entries[i], buffer);
    tf__free(header);
    tf__free(buffer);
    if (s == TF_OK)
        return tf__file_commit(&w);
    tf__file_discard(&w);
    return s;
}
