/* normalizers.c — the one table of normalizers, and running one.
 *
 * Adding a normalizer (say tokenizers' ByteLevel, "ByteLevel" in its
 * "type"):
 *  1. write normalizers/<type>.c, after tokenizers' normalizers/ (named at
 *     its top), defining `const tf__normalizer_type tf__<type>_normalizer`
 *     (normalizers.h and stages.h say what each field is): its state, a
 *     read that reads and checks every field tokenizers reads, apply,
 *     destroy;
 *  2. add its line to TF_NORMALIZERS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a normalizer: tokenizer.json's "type" finds its row
 * here (a "Sequence" is a list of them), and the tokenizer calls the row. */
#include "normalizers.h"

#include <string.h>

#include "error.h"

#define TF_NORMALIZERS(ROW) /* the table: a line per type, the row its file defines */ \
    ROW(tf__bert_normalizer)                                                           \
    ROW(tf__nfc_normalizer)                                                            \
    ROW(tf__nfd_normalizer)                                                            \
    ROW(tf__nfkc_normalizer)                                                           \
    ROW(tf__nfkd_normalizer)                                                           \
    ROW(tf__lowercase_normalizer)                                                      \
    ROW(tf__strip_accents_normalizer)                                                  \
    ROW(tf__strip_normalizer)                                                          \
    ROW(tf__replace_normalizer)                                                        \
    ROW(tf__prepend_normalizer)                                                        \
    ROW(tf__precompiled_normalizer)                                                    \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf__normalizer_type row;
TF_NORMALIZERS(DECLARE_ROW)
#define ROW_ADDRESS(row) &(row),
static const tf__normalizer_type *const normalizers[] = {TF_NORMALIZERS(ROW_ADDRESS)};
enum { N_NORMALIZERS = sizeof normalizers / sizeof normalizers[0] };

const tf__stage_type *tf__normalizer_find(const char *name)
{
    for (int i = 0; i < N_NORMALIZERS; i++)
        if (strcmp(normalizers[i]->stage.name, name) == 0)
            return &normalizers[i]->stage;
    return NULL;
}

/* The normalizer row of stage n (its first member is n's type). */
static const tf__normalizer_type *row_of(const tf__stage *n)
{
    return (const tf__normalizer_type *)n->type;
}

int tf__normalizer_per_char(const tf__stage *n)
{
    return row_of(n)->per_char;
}

tf_status tf__normalizer_no_memory(const char *what)
{
    return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate while normalising", what);
}

size_t tf__source_bytes(const tf__chars *in)
{
    uint32_t first = UINT32_MAX, last = 0;
    for (size_t k = 0; k < in->n; k++) {
        first = in->v[k].begin < first ? in->v[k].begin : first;
        last = in->v[k].end > last ? in->v[k].end : last;
    }
    return in->n ? last - first : 0;
}

int tf__grows_past(tf__growth *g, size_t made)
{
    const tf__chars *in = g->in;
    if (made <= in->n)
        return 0;
    /* the bytes from the first character's to the last's are of the text
       (most often all of it): within their bound, no need to look further */
    const uint32_t first = in->n ? in->v[0].begin : 0, last = in->n ? in->v[in->n - 1].end : 0;
    if (last > first && made <= TF_GROWTH_PER_BYTE * (size_t)(last - first))
        return 0;
    if (!g->most) {
        const size_t bound = TF_GROWTH_PER_BYTE * tf__source_bytes(in);
        g->most = in->n > bound ? in->n : bound;
    }
    return made > g->most;
}

int tf__chars_push_content(tf__chars *out, const tf__chars *content, int64_t begin, int64_t end)
{
    for (size_t k = 0; k < content->n; k++)
        if (!tf__chars_push(out, content->v[k].cp, begin, end))
            return 0;
    return 1;
}

tf_status tf__normalize(tf__chars *out, const tf__chars *in, const tf__stage *n, const char *what)
{
    if (!tf__chars_reserve_output(out, in))
        return tf__normalizer_no_memory(what);
    const size_t base = out->n;
    const tf_status s = row_of(n)->apply(out, in, n->state, what);
    if (s)
        return s;
    /* checked after: most make a few characters of one at most (Precompiled
       and Prepend at most their strings; Replace checks its own as it goes) */
    tf__growth g = {in, 0};
    if (!tf__grows_past(&g, out->n - base))
        return TF_OK;
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: the %s normalizer would make more than %zu characters, %d per byte of the "
                    "%zu bytes of text they come from",
                    what, n->type->name, g.most, TF_GROWTH_PER_BYTE, tf__source_bytes(in));
}
