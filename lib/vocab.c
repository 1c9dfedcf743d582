/* vocab.c — loading vocab.txt into a string blob and a hash index. */
#include "vocab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define TF_VOCAB_MAX_BYTES (256u << 20)
#define TF_VOCAB_MAX_TOKENS (1 << 24)

static uint64_t hash(const char *s, size_t len) /* FNV-1a */
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

int32_t tf_vocab_find(const tf_vocab *v, const char *token, size_t len)
{
    const size_t mask = v->n_slots - 1;
    for (size_t i = hash(token, len) & mask;; i = (i + 1) & mask) {
        const int32_t id = v->slots[i];
        if (id < 0)
            return -1;
        if (v->length[id] == len && memcmp(tf_vocab_token(v, id), token, len) == 0)
            return id;
    }
}

/* Adds id to the index; a token seen before now points at id. */
static void index_token(tf_vocab *v, int32_t id)
{
    const char *t = tf_vocab_token(v, id);
    const size_t len = v->length[id], mask = v->n_slots - 1;
    size_t i = hash(t, len) & mask;
    for (; v->slots[i] >= 0; i = (i + 1) & mask)
        if (v->length[v->slots[i]] == len && memcmp(tf_vocab_token(v, v->slots[i]), t, len) == 0)
            break;
    v->slots[i] = id;
}

/* The whole file, NUL-terminated. */
static tf_status read_all(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tf_fail(TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap >= TF_VOCAB_MAX_BYTES)
            break;
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    const int failed = ferror(f);
    fclose(f);
    if (!buf)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the vocabulary", path);
    if (failed || n >= TF_VOCAB_MAX_BYTES) {
        free(buf);
        return failed ? tf_fail(TF_ERR_IO, "%s: read error", path)
                      : tf_fail(TF_ERR_FORMAT, "%s: larger than %u bytes", path,
                                TF_VOCAB_MAX_BYTES);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return TF_OK;
}

tf_status tf_vocab_load(tf_vocab *v, const char *path)
{
    memset(v, 0, sizeof *v);
    size_t len = 0;
    tf_status s = read_all(path, &v->text, &len);
    if (s)
        return s;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += v->text[i] == '\n';
    lines += len > 0 && v->text[len - 1] != '\n'; /* a last line without "\n" */
    if (lines == 0 || lines > TF_VOCAB_MAX_TOKENS) {
        tf_vocab_destroy(v);
        return tf_fail(TF_ERR_FORMAT, "%s: %zu tokens; expected 1..%d", path, lines,
                       TF_VOCAB_MAX_TOKENS);
    }
    v->n_slots = 2;
    while (v->n_slots < 2 * lines)
        v->n_slots *= 2;
    v->offset = malloc(lines * sizeof *v->offset);
    v->length = malloc(lines * sizeof *v->length);
    v->slots = malloc(v->n_slots * sizeof *v->slots);
    if (!v->offset || !v->length || !v->slots) {
        tf_vocab_destroy(v);
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot index %zu tokens", path, lines);
    }
    memset(v->slots, 0xff, v->n_slots * sizeof *v->slots); /* all -1 */
    size_t start = 0;
    for (size_t i = 0; i <= len && (size_t)v->size < lines; i++) {
        if (i < len && v->text[i] != '\n')
            continue;
        size_t end = i;
        if (end > start && v->text[end - 1] == '\r')
            end--;
        v->text[end] = '\0';
        v->offset[v->size] = start;
        v->length[v->size] = (uint32_t)(end - start); /* < 256 MiB */
        v->max_length = end - start > v->max_length ? end - start : v->max_length;
        index_token(v, v->size++);
        start = i + 1;
    }
    return TF_OK;
}

void tf_vocab_destroy(tf_vocab *v)
{
    free(v->text);
    free(v->offset);
    free(v->length);
    free(v->slots);
    memset(v, 0, sizeof *v);
}
