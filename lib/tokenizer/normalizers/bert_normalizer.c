/* bert_normalizer.c — tokenizers' BertNormalizer (normalizers/bert.rs):
 * control characters, NUL and U+FFFD dropped and whitespace made ' '
 * (clean_text), CJK ideographs surrounded by ' ' (handle_chinese_chars),
 * accents stripped (strip_accents; null: as lowercase), lower-cased
 * (lowercase); one character at a time. */
#include "bert_stages.h"

#include <utf8proc.h>

typedef struct bert {
    int32_t clean_text, handle_chinese_chars, strip_accents, lowercase;
} bert;

void tf__bert_normalizer_init(void *state, int32_t clean_text, int32_t handle_chinese_chars,
                              int32_t strip_accents, int32_t lowercase)
{
    *(bert *)state = (bert){clean_text, handle_chinese_chars, strip_accents, lowercase};
}

static tf_status read(void *state, const tf__fields *f)
{
    bert *n = state;
    const char *keys[4] = {"clean_text", "handle_chinese_chars", "lowercase", "strip_accents"};
    int32_t *dst[4] = {&n->clean_text, &n->handle_chinese_chars, &n->lowercase, &n->strip_accents};
    tf_status s = TF_OK;
    for (int k = 0; k < 4 && s == TF_OK; k++)
        s = f->boolean(f, keys[k], k == 3 ? -1 : 1, dst[k]);
    if (n->strip_accents < 0) /* null: as lowercase */
        n->strip_accents = n->lowercase;
    return s;
}

/* cp >= 0x80 from [begin, end) with accents stripped (NFD, nonspacing marks
 * dropped) then lower-cased, each as n says. */
static int push_normalised(tf__chars *out, const bert *n, int32_t cp, int64_t begin, int64_t end)
{
    utf8proc_int32_t parts[32]; /* the decomposition of cp */
    utf8proc_ssize_t count = 1;
    parts[0] = cp;
    if (n->strip_accents) {
        int boundclass = 0;
        count = utf8proc_decompose_char(cp, parts, 32, UTF8PROC_DECOMPOSE, &boundclass);
        if (count < 0 || count > 32)
            count = 1, parts[0] = cp;
    }
    for (utf8proc_ssize_t i = 0; i < count; i++) {
        if (n->strip_accents && tf__is_nonspacing_mark(parts[i]))
            continue;
        if (!(n->lowercase ? tf__chars_push_lower(out, parts[i], begin, end)
                           : tf__chars_push(out, parts[i], begin, end)))
            return 0;
    }
    return 1;
}

/* BertNormalizer's passes over one character. */
static int one(tf__chars *out, const bert *n, const tf__char *c)
{
    const int32_t cp = c->cp;
    if (n->clean_text && (cp == 0 || cp == 0xFFFD || tf__is_control(cp)))
        return 1;
    if (n->clean_text && tf__is_whitespace(cp))
        return tf__chars_push(out, ' ', c->begin, c->end);
    if (cp < 0x80)
        return n->lowercase ? tf__chars_push_lower(out, cp, c->begin, c->end)
                            : tf__chars_push(out, cp, c->begin, c->end);
    if (n->handle_chinese_chars && tf__is_cjk(cp))
        return tf__chars_push(out, ' ', c->begin, c->end) &&
            push_normalised(out, n, cp, c->begin, c->end) &&
            tf__chars_push(out, ' ', c->begin, c->end);
    return push_normalised(out, n, cp, c->begin, c->end);
}

static tf_status apply(tf__chars *out, const tf__chars *in, const void *state, const char *what)
{
    for (size_t k = 0; k < in->n; k++)
        if (!one(out, state, &in->v[k]))
            return tf__normalizer_no_memory(what);
    return TF_OK;
}

const tf__normalizer_type tf__bert_normalizer = {
    .stage = {"BertNormalizer", sizeof(bert), read, NULL},
    .apply = apply,
    .per_char = 1,
};
