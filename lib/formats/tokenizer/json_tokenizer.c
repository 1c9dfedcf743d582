/* json_tokenizer.c — a tokenizer.json (Hugging Face tokenizers'
 * serialisation) into a tf_tokenizer's stages: the tokenizer model
 * (json_model.c), added tokens, normalizer, pre-tokenizer, decoder,
 * post-processor, truncation, padding. Every field is checked: a wrong type
 * or an absurd size is TF_ERR_FORMAT naming it, a component this library
 * does not have is TF_ERR_UNSUPPORTED naming it and its "type". */
#include <cjson/cJSON.h>
#include <string.h>
#include <utf8proc.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "json.h"
#include "json_fields.h"
#include "tokenizer_files.h"
#include "utf8.h"

#define TF_MAX_STAGES 64       /* normalizers or pre-tokenizers, Sequences flattened */
#define TF_MAX_TEMPLATE 64     /* items of a template */
#define TF_MAX_ADDED (1 << 20) /* added tokens */
#define TF_JSON_MAX_DEPTH 64   /* nesting of the file's arrays and objects */

/* ---- Patterns -------------------------------------------------------------------- */

/* {"String": s} or {"Regex": r} into *re. */
static tf_status load_pattern(const tf_json_loader *l, const cJSON *pattern, const char *field,
                              tf_regex **re)
{
    const cJSON *str = tf_field_item(pattern, "String"), *regex = tf_field_item(pattern, "Regex");
    const cJSON *v = cJSON_IsString(str) ? str : regex;
    if (!cJSON_IsObject(pattern) || !cJSON_IsString(v))
        return tf_field_bad(l, field, "{\"String\": ...} or {\"Regex\": ...}");
    char what[512];
    tf_field_name(what, sizeof what, "%s: %s", l->path, field);
    return tf_regex_compile(re, v->valuestring, strlen(v->valuestring), v == str, what);
}

/* ---- Normalizers ----------------------------------------------------------------- */

/* A slot for one more stage of `size` bytes in *list ([*n]). */
static void *more_stage(const tf_json_loader *l, void **list, size_t *n, size_t size,
                        const char *field, tf_status *s)
{
    if (*n >= TF_MAX_STAGES) {
        *s = tf_field_bad(l, field, "at most 64 stages");
        return NULL;
    }
    char *bigger = tf_realloc(*list, (*n + 1) * size);
    if (!bigger) {
        *s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the stages", l->path);
        return NULL;
    }
    *list = bigger;
    memset(bigger + *n * size, 0, size);
    return bigger + (*n)++ * size;
}

static tf_status content_chars(const tf_json_loader *l, const cJSON *o, const char *key,
                               const char *field, tf_chars *out)
{
    const char *text;
    tf_status s = tf_field_string(l, o, key, field, 0, &text);
    return s ? s : tf_chars_decode(out, text, strlen(text), 0, field);
}

static tf_status load_bert_normalizer(const tf_json_loader *l, const cJSON *o, const char *field,
                                      tf_normalizer *n)
{
    char f[4][160];
    const char *keys[4] = {"clean_text", "handle_chinese_chars", "lowercase", "strip_accents"};
    int32_t *dst[4] = {&n->clean_text, &n->handle_chinese_chars, &n->lowercase, &n->strip_accents};
    tf_status s = TF_OK;
    for (int k = 0; k < 4 && s == TF_OK; k++) {
        tf_field_name(f[k], sizeof f[k], "%s.%s", field, keys[k]);
        s = tf_field_bool(l, o, keys[k], f[k], k == 3 ? -1 : 1, dst[k]);
    }
    if (n->strip_accents < 0) /* null: as lowercase */
        n->strip_accents = n->lowercase;
    return s;
}

/* A stage of one kind (normalizer, pre-tokenizer, post-processor) at
 * `field`, inside `depth` Sequences. */
typedef tf_status (*stage_loader)(const tf_json_loader *l, const cJSON *o, const char *field,
                                  int depth);

/* The stages of a {"type": "Sequence", key: [...]} at field, each loaded
 * by load_stage in order (so nested Sequences are flattened). */
static tf_status load_sequence(const tf_json_loader *l, const cJSON *o, const char *field,
                               const char *key, int depth, stage_loader load_stage)
{
    const cJSON *list = tf_field_item(o, key), *stage;
    char f[160];
    tf_field_name(f, sizeof f, "%s.%s", field, key);
    if (!cJSON_IsArray(list) || depth > 8)
        return tf_field_bad(l, f, "an array (Sequences nested at most 8 deep)");
    int k = 0;
    cJSON_ArrayForEach(stage, list) {
        tf_field_name(f, sizeof f, "%s.%s[%d]", field, key, k++);
        const tf_status s = load_stage(l, stage, f, depth + 1);
        if (s)
            return s;
    }
    return TF_OK;
}


static tf_status load_one_normalizer(const tf_json_loader *l, const cJSON *o, const char *field,
                                     const char *type)
{
    static const struct {
        const char *type;
        tf_normalizer_kind kind;
    } plain[] = {{"NFC", TF_NORMALIZER_NFC},
                 {"NFD", TF_NORMALIZER_NFD},
                 {"NFKC", TF_NORMALIZER_NFKC},
                 {"NFKD", TF_NORMALIZER_NFKD},
                 {"Lowercase", TF_NORMALIZER_LOWERCASE},
                 {"StripAccents", TF_NORMALIZER_STRIP_ACCENTS},
                 {"BertNormalizer", TF_NORMALIZER_BERT},
                 {"Strip", TF_NORMALIZER_STRIP},
                 {"Replace", TF_NORMALIZER_REPLACE},
                 {"Prepend", TF_NORMALIZER_PREPEND},
                 {"Precompiled", TF_NORMALIZER_PRECOMPILED}};
    size_t k = 0;
    while (k < sizeof plain / sizeof plain[0] && strcmp(plain[k].type, type) != 0)
        k++;
    if (k == sizeof plain / sizeof plain[0])
        return tf_field_unsupported(l, field, type);
    tf_tokenizer *tok = l->tok;
    tf_status s = TF_OK;
    tf_normalizer *n = more_stage(l, (void **)&tok->normalizers, &tok->n_normalizers,
                                  sizeof *n, field, &s);
    if (!n)
        return s;
    n->kind = plain[k].kind;
    char f[160];
    switch (n->kind) {
    case TF_NORMALIZER_BERT:
        return load_bert_normalizer(l, o, field, n);
    case TF_NORMALIZER_STRIP:
        tf_field_name(f, sizeof f, "%s.strip_left", field);
        s = tf_field_bool(l, o, "strip_left", f, 1, &n->left);
        tf_field_name(f, sizeof f, "%s.strip_right", field);
        return s ? s : tf_field_bool(l, o, "strip_right", f, 1, &n->right);
    case TF_NORMALIZER_REPLACE:
        tf_field_name(f, sizeof f, "%s.pattern", field);
        s = load_pattern(l, tf_field_item(o, "pattern"), f, &n->pattern);
        tf_field_name(f, sizeof f, "%s.content", field);
        return s ? s : content_chars(l, o, "content", f, &n->content);
    case TF_NORMALIZER_PREPEND:
        tf_field_name(f, sizeof f, "%s.prepend", field);
        return content_chars(l, o, "prepend", f, &n->content);
    case TF_NORMALIZER_PRECOMPILED: {
        const char *charsmap;
        char what[512];
        tf_field_name(f, sizeof f, "%s.precompiled_charsmap", field);
        tf_field_name(what, sizeof what, "%s: %s", l->path, f);
        s = tf_field_string(l, o, "precompiled_charsmap", f, 0, &charsmap);
        return s ? s : tf_precompiled_load(&n->charsmap, charsmap, what);
    }
    default:
        return TF_OK;
    }
}

static tf_status load_normalizer(const tf_json_loader *l, const cJSON *o, const char *field,
                                 int depth)
{
    const char *type;
    tf_status s = tf_field_type(l, o, field, &type);
    if (s || strcmp(type, "Sequence") != 0)
        return s ? s : load_one_normalizer(l, o, field, type);
    return load_sequence(l, o, field, "normalizers", depth, load_normalizer);
}

/* ---- Pre-tokenizers -------------------------------------------------------------- */

static tf_status get_behavior(const tf_json_loader *l, const cJSON *o, const char *field,
                              tf_split_behavior dflt, tf_split_behavior *out)
{
    static const char *names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext",
                                  "Contiguous"};
    char f[160];
    tf_field_name(f, sizeof f, "%s.behavior", field);
    const char *name;
    tf_status s = tf_field_string(l, o, "behavior", f, 1, &name);
    *out = dflt;
    if (s || !name[0])
        return s;
    for (int k = 0; k < 5; k++)
        if (strcmp(name, names[k]) == 0) {
            *out = (tf_split_behavior)k;
            return TF_OK;
        }
    return tf_field_bad(l, f,
                        "Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

/* GPT-2's pattern, which ByteLevel splits by when use_regex. */
static const char gpt2_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char whitespace_pattern[] = "\\w+|[^\\w\\s]+";

/* Metaspace's replacement (one character), prepend_scheme ("always",
 * "first", "never"; older files: add_prefix_space true or false) and split. */
static tf_status load_metaspace(const tf_json_loader *l, const cJSON *o, const char *field,
                                tf_pretokenizer *p)
{
    char f[160];
    const char *replacement, *scheme;
    tf_field_name(f, sizeof f, "%s.replacement", field);
    tf_status s = tf_field_string(l, o, "replacement", f, 0, &replacement);
    utf8proc_int32_t cp = -1;
    /* the string's own length: with -1, "" would read its NUL as a character and look past it */
    const utf8proc_ssize_t len =
        s ? 0 : utf8proc_iterate((const utf8proc_uint8_t *)replacement,
                                 (utf8proc_ssize_t)strlen(replacement), &cp);
    if (s == TF_OK && (len <= 0 || replacement[len] != '\0'))
        s = tf_field_bad(l, f, "one character");
    p->replacement = cp;
    tf_field_name(f, sizeof f, "%s.split", field);
    if (s == TF_OK)
        s = tf_field_bool(l, o, "split", f, 1, &p->split);
    tf_field_name(f, sizeof f, "%s.prepend_scheme", field);
    if (s == TF_OK)
        s = tf_field_string(l, o, "prepend_scheme", f, 1, &scheme);
    if (s || !scheme[0]) {
        int32_t add_prefix_space = 1;
        tf_field_name(f, sizeof f, "%s.add_prefix_space", field);
        s = s ? s : tf_field_bool(l, o, "add_prefix_space", f, 1, &add_prefix_space);
        p->prepend_scheme = add_prefix_space ? TF_PREPEND_ALWAYS : TF_PREPEND_NEVER;
        return s;
    }
    static const char *schemes[] = {"always", "first", "never"};
    for (int k = 0; k < 3; k++)
        if (strcmp(scheme, schemes[k]) == 0) {
            p->prepend_scheme = (tf_prepend_scheme)k;
            return TF_OK;
        }
    return tf_field_bad(l, f, "\"always\", \"first\" or \"never\"");
}

static tf_status load_one_pretokenizer(const tf_json_loader *l, const cJSON *o, const char *field,
                                       const char *type)
{
    static const struct {
        const char *type;
        tf_pretokenizer_kind kind;
    } kinds[] = {{"BertPreTokenizer", TF_PRE_BERT}, {"ByteLevel", TF_PRE_BYTE_LEVEL},
                 {"Whitespace", TF_PRE_WHITESPACE}, {"WhitespaceSplit", TF_PRE_WHITESPACE_SPLIT},
                 {"Punctuation", TF_PRE_PUNCTUATION}, {"Digits", TF_PRE_DIGITS},
                 {"Split", TF_PRE_SPLIT}, {"Metaspace", TF_PRE_METASPACE}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].type, type) != 0)
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return tf_field_unsupported(l, field, type);
    tf_tokenizer *tok = l->tok;
    tf_status s = TF_OK;
    tf_pretokenizer *p = more_stage(l, (void **)&tok->pretokenizers, &tok->n_pretokenizers,
                                    sizeof *p, field, &s);
    if (!p)
        return s;
    p->kind = kinds[k].kind;
    char f[160], what[512];
    int32_t use_regex = 1;
    switch (p->kind) {
    case TF_PRE_BYTE_LEVEL:
        tf_field_name(f, sizeof f, "%s.add_prefix_space", field);
        s = tf_field_bool(l, o, "add_prefix_space", f, 1, &p->add_prefix_space);
        tf_field_name(f, sizeof f, "%s.use_regex", field);
        if (s == TF_OK)
            s = tf_field_bool(l, o, "use_regex", f, 1, &use_regex);
        tf_field_name(what, sizeof what, "%s: %s", l->path, field);
        return s || !use_regex ? s
                               : tf_regex_compile(&p->pattern, gpt2_pattern,
                                                  sizeof gpt2_pattern - 1, 0, what);
    case TF_PRE_WHITESPACE:
        tf_field_name(what, sizeof what, "%s: %s", l->path, field);
        return tf_regex_compile(&p->pattern, whitespace_pattern, sizeof whitespace_pattern - 1, 0,
                                what);
    case TF_PRE_PUNCTUATION:
        return get_behavior(l, o, field, TF_SPLIT_ISOLATED, &p->behavior);
    case TF_PRE_DIGITS:
        tf_field_name(f, sizeof f, "%s.individual_digits", field);
        return tf_field_bool(l, o, "individual_digits", f, 0, &p->individual);
    case TF_PRE_SPLIT:
        tf_field_name(f, sizeof f, "%s.invert", field);
        s = get_behavior(l, o, field, TF_SPLIT_REMOVED, &p->behavior);
        if (s == TF_OK)
            s = tf_field_bool(l, o, "invert", f, 0, &p->invert);
        tf_field_name(f, sizeof f, "%s.pattern", field);
        return s ? s : load_pattern(l, tf_field_item(o, "pattern"), f, &p->pattern);
    case TF_PRE_METASPACE:
        return load_metaspace(l, o, field, p);
    default:
        return TF_OK;
    }
}

static tf_status load_pretokenizer(const tf_json_loader *l, const cJSON *o, const char *field,
                                   int depth)
{
    const char *type;
    tf_status s = tf_field_type(l, o, field, &type);
    if (s || strcmp(type, "Sequence") != 0)
        return s ? s : load_one_pretokenizer(l, o, field, type);
    return load_sequence(l, o, field, "pretokenizers", depth, load_pretokenizer);
}

/* ---- Decoders -------------------------------------------------------------------- */

/* A string field of a decoder, copied into *out. */
static tf_status decoder_text(const tf_json_loader *l, const cJSON *o, const char *key,
                              const char *field, const char *dflt, char **out)
{
    char f[160];
    const char *text;
    tf_field_name(f, sizeof f, "%s.%s", field, key);
    tf_status s = tf_field_string(l, o, key, f, dflt != NULL, &text);
    if (s)
        return s;
    text = tf_field_absent(tf_field_item(o, key)) ? dflt : text;
    *out = tf_malloc(strlen(text) + 1);
    if (!*out)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the decoder", l->path);
    strcpy(*out, text);
    return TF_OK;
}

static tf_status load_one_decoder(const tf_json_loader *l, const cJSON *o, const char *field,
                                  const char *type)
{
    static const struct {
        const char *type;
        tf_decoder_kind kind;
    } kinds[] = {{"ByteLevel", TF_DEC_BYTE_LEVEL},   {"WordPiece", TF_DEC_WORDPIECE},
                 {"Metaspace", TF_DEC_METASPACE},    {"BPEDecoder", TF_DEC_BPE},
                 {"Replace", TF_DEC_REPLACE},        {"ByteFallback", TF_DEC_BYTE_FALLBACK},
                 {"Fuse", TF_DEC_FUSE},              {"Strip", TF_DEC_STRIP}};
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].type, type) != 0)
        k++;
    tf_tokenizer *tok = l->tok;
    if (k == sizeof kinds / sizeof kinds[0]) { /* refused when decoding, not loading */
        if (!tok->unsupported_decoder[0])
            tf_field_name(tok->unsupported_decoder, sizeof tok->unsupported_decoder, "%s", type);
        return TF_OK;
    }
    tf_status s = TF_OK;
    tf_decoder *d = more_stage(l, (void **)&tok->decoders, &tok->n_decoders, sizeof *d, field, &s);
    if (!d)
        return s;
    d->kind = kinds[k].kind;
    char f[160];
    switch (d->kind) {
    case TF_DEC_WORDPIECE:
        s = decoder_text(l, o, "prefix", field, "##", &d->text);
        tf_field_name(f, sizeof f, "%s.cleanup", field);
        return s ? s : tf_field_bool(l, o, "cleanup", f, 1, &d->cleanup);
    case TF_DEC_METASPACE: {
        tf_pretokenizer p = {0};
        s = load_metaspace(l, o, field, &p);
        d->replacement = p.replacement;
        d->prepend_scheme = p.prepend_scheme;
        return s;
    }
    case TF_DEC_BPE:
        return decoder_text(l, o, "suffix", field, "</w>", &d->text);
    case TF_DEC_REPLACE:
        tf_field_name(f, sizeof f, "%s.pattern", field);
        s = load_pattern(l, tf_field_item(o, "pattern"), f, &d->pattern);
        return s ? s : decoder_text(l, o, "content", field, NULL, &d->text);
    case TF_DEC_STRIP: {
        s = decoder_text(l, o, "content", field, NULL, &d->text);
        utf8proc_int32_t cp;
        const utf8proc_ssize_t width =
            s ? 0 : utf8proc_iterate((const utf8proc_uint8_t *)d->text,
                                     (utf8proc_ssize_t)strlen(d->text), &cp); /* as above */
        tf_field_name(f, sizeof f, "%s.content", field);
        if (s == TF_OK && (width <= 0 || d->text[width]))
            s = tf_field_bad(l, f, "one character");
        tf_field_name(f, sizeof f, "%s.start", field);
        if (s == TF_OK)
            s = tf_field_int(l, tf_field_item(o, "start"), f, 0, INT32_MAX, 0, &d->start);
        tf_field_name(f, sizeof f, "%s.stop", field);
        return s ? s : tf_field_int(l, tf_field_item(o, "stop"), f, 0, INT32_MAX, 0, &d->stop);
    }
    default:
        return TF_OK;
    }
}

static tf_status load_decoder(const tf_json_loader *l, const cJSON *o, const char *field, int depth)
{
    const char *type;
    tf_status s = tf_field_type(l, o, field, &type);
    if (s || strcmp(type, "Sequence") != 0)
        return s ? s : load_one_decoder(l, o, field, type);
    return load_sequence(l, o, field, "decoders", depth, load_decoder);
}

/* ---- Added tokens ---------------------------------------------------------------- */

static tf_status load_added_token(const tf_json_loader *l, const cJSON *o, int k)
{
    char f[64], g[96];
    tf_field_name(f, sizeof f, "added_tokens[%d]", k);
    if (!cJSON_IsObject(o))
        return tf_field_bad(l, f, "an object");
    tf_added_token *t = &l->tok->added.v[l->tok->added.n];
    memset(t, 0, sizeof *t);
    const char *content;
    tf_field_name(g, sizeof g, "%s.content", f);
    tf_status s = tf_field_string(l, o, "content", g, 0, &content);
    if (s == TF_OK && !content[0])
        s = tf_field_bad(l, g, "a non-empty string");
    tf_field_name(g, sizeof g, "%s.id", f);
    if (s == TF_OK)
        s = tf_field_int(l, tf_field_item(o, "id"), g, 0, INT32_MAX - 1, -1, &t->id);
    if (s == TF_OK && t->id < 0)
        s = tf_field_bad(l, g, "an integer id");
    static const char *flags[] = {"special", "single_word", "lstrip", "rstrip", "normalized"};
    int32_t *dst[] = {&t->special, &t->single_word, &t->lstrip, &t->rstrip, &t->normalized};
    for (int i = 0; i < 5 && s == TF_OK; i++) {
        tf_field_name(g, sizeof g, "%s.%s", f, flags[i]);
        s = tf_field_bool(l, o, flags[i], g, i == 4 ? !t->special : 0, dst[i]);
    }
    if (s)
        return s;
    const int32_t in_vocab = tf_vocab_find(&l->tok->vocab, content, strlen(content));
    t->id = in_vocab >= 0 ? in_vocab : t->id; /* the vocabulary's id, as tokenizers gives it */
    l->tok->added.n++;
    t->content = tf_malloc(strlen(content) + 1);
    if (!t->content)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
    strcpy(t->content, content);
    s = tf_chars_decode(&t->chars, content, strlen(content), 0, f);
    if (s == TF_OK && t->normalized)
        s = tf_tokenizer_normalize_chars(l->tok, &t->chars, f);
    l->tok->has_normalized_added |= t->normalized;
    return s;
}

static tf_status load_added_tokens(const tf_json_loader *l, const cJSON *list)
{
    const int n = tf_field_absent(list) ? 0 : cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 0 || n > TF_MAX_ADDED)
        return tf_field_bad(l, "added_tokens", "an array of at most 1048576 tokens");
    l->tok->added.v = tf_calloc((size_t)n + 1, sizeof *l->tok->added.v); /* [n], never 0 */
    if (!l->tok->added.v)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
    int k = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, list) {
        const tf_status s = load_added_token(l, t, k++);
        if (s)
            return s;
    }
    return tf_added_index(&l->tok->added)
               ? TF_OK
               : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the added tokens", l->path);
}

/* ---- Post-processor -------------------------------------------------------------- */

/* Each as tokenizers' serde reads it (tokenizers/src/processors/: template.rs, bert.rs,
 * roberta.rs, sequence.rs; ByteLevel's in pre_tokenizers/byte_level.rs): the type and range
 * of every field, or TF_ERR_FORMAT naming the field and its value. */

enum { POST_FIELD = 256 }; /* bytes of a field's name: Sequences 8 deep, a key of 48 */

/* TF_ERR_FORMAT: field holds v (NULL: is absent) where tokenizers reads `expected`. */
static tf_status bad_value(const tf_json_loader *l, const char *field, const char *expected,
                           const cJSON *v)
{
    char got[96] = "nothing";
    if (v)
        tf_json_describe(v, got, sizeof got);
    return tf_fail(TF_ERR_FORMAT, "%s: %s: expected %s, got %s", l->path, field, expected, got);
}

/* An id or a type id: tokenizers' u32, held here in an int32_t. */
static tf_status post_u32(const tf_json_loader *l, const cJSON *v, const char *field, int32_t *out)
{
    uint64_t u;
    if (!tf_json_uint(v, INT32_MAX, &u))
        return bad_value(l, field, "an integer in 0..2147483647", v);
    *out = (int32_t)u;
    return TF_OK;
}

/* A bool field of ByteLevel or RobertaProcessing, required unless optional (then true when
 * absent, as ByteLevel's use_regex); checked, not applied: their trim_offsets is not (tfenc.h),
 * and add_prefix_space and use_regex act only through it here. */
static tf_status post_bool(const tf_json_loader *l, const cJSON *o, const char *key,
                           const char *field, int optional)
{
    const cJSON *v = tf_field_item(o, key);
    if (cJSON_IsBool(v) || (optional && !v))
        return TF_OK;
    char f[POST_FIELD];
    tf_field_name(f, sizeof f, "%s.%s", field, key);
    return bad_value(l, f, "true or false", v);
}

/* [token, id] of BertProcessing / RobertaProcessing: a (String, u32). */
static tf_status token_pair(const tf_json_loader *l, const cJSON *o, const char *key,
                            const char *field, int32_t *id)
{
    char f[POST_FIELD], g[POST_FIELD + 8];
    tf_field_name(f, sizeof f, "%s.%s", field, key);
    const cJSON *v = tf_field_item(o, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return bad_value(l, f, "[token, id]", v);
    tf_field_name(g, sizeof g, "%s[0]", f);
    if (!cJSON_IsString(cJSON_GetArrayItem(v, 0)))
        return bad_value(l, g, "a string", cJSON_GetArrayItem(v, 0));
    tf_field_name(g, sizeof g, "%s[1]", f);
    return post_u32(l, cJSON_GetArrayItem(v, 1), g, id);
}

/* The name of special_tokens' entry `key` (specials the name of special_tokens). */
static void special_field(char field[POST_FIELD], const char *specials, const char *key)
{
    tf_field_name(field, POST_FIELD, "%s[\"%.*s\"]", specials, tf_utf8_prefix(key, 48), key);
}

/* A SpecialToken of special_tokens at field: {"id": string, "ids": [u32], "tokens": [string]},
 * ids and tokens as long (tokenizers' SpecialToken::new); its ids into ids[TF_MAX_TEMPLATE]
 * and *n. */
static tf_status special_token(const tf_json_loader *l, const cJSON *entry, const char *field,
                               int32_t *ids, int *n)
{
    char f[POST_FIELD + 16];
    if (!cJSON_IsObject(entry))
        return bad_value(l, field, "an object {\"id\", \"ids\", \"tokens\"}", entry);
    const cJSON *list = tf_field_item(entry, "ids"), *tokens = tf_field_item(entry, "tokens"), *v;
    tf_field_name(f, sizeof f, "%s.id", field);
    if (!cJSON_IsString(tf_field_item(entry, "id")))
        return bad_value(l, f, "a string", tf_field_item(entry, "id"));
    tf_field_name(f, sizeof f, "%s.ids", field);
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > TF_MAX_TEMPLATE)
        return bad_value(l, f, "an array of at most 64 ids", list);
    *n = 0;
    cJSON_ArrayForEach(v, list) {
        tf_field_name(f, sizeof f, "%s.ids[%d]", field, *n);
        const tf_status s = post_u32(l, v, f, &ids[*n]);
        if (s)
            return s;
        ++*n;
    }
    tf_field_name(f, sizeof f, "%s.tokens", field);
    if (!cJSON_IsArray(tokens))
        return bad_value(l, f, "an array of strings", tokens);
    int n_tokens = 0;
    cJSON_ArrayForEach(v, tokens) {
        tf_field_name(f, sizeof f, "%s.tokens[%d]", field, n_tokens++);
        if (!cJSON_IsString(v))
            return bad_value(l, f, "a string", v);
    }
    if (n_tokens != *n)
        return tf_fail(TF_ERR_FORMAT, "%s: %s: ids and tokens must be of the same length, got "
                       "%d id%s and %d token%s", l->path, field, *n, *n == 1 ? "" : "s",
                       n_tokens, n_tokens == 1 ? "" : "s");
    return TF_OK;
}

/* TemplateProcessing's special_tokens at specials_field: an object of SpecialTokens, every
 * one checked, as tokenizers reads them all. */
static tf_status check_special_tokens(const tf_json_loader *l, const cJSON *specials,
                                      const char *specials_field)
{
    if (!cJSON_IsObject(specials))
        return bad_value(l, specials_field, "an object", specials);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, specials) {
        char f[POST_FIELD];
        int32_t ids[TF_MAX_TEMPLATE];
        int n;
        special_field(f, specials_field, entry->string);
        const tf_status s = special_token(l, entry, f, ids, &n);
        if (s)
            return s;
    }
    return TF_OK;
}

/* A piece of TemplateProcessing's single or pair at field, as serde writes tokenizers' Piece:
 * {"Sequence": {"id": "A" or "B", "type_id": u32}} or {"SpecialToken": {"id": a key of
 * special_tokens, "type_id": u32}} (the strings "$A", "[CLS]:0" are its builder's, not a
 * file's); appended to t. */
static tf_status template_item(const tf_json_loader *l, const cJSON *specials,
                               const char *specials_field, const cJSON *it, const char *field,
                               tf_template *t)
{
    const cJSON *body = cJSON_IsObject(it) && cJSON_GetArraySize(it) == 1 ? it->child : NULL;
    const int is_seq = body && strcmp(body->string, "Sequence") == 0;
    if (!body || (!is_seq && strcmp(body->string, "SpecialToken") != 0))
        return bad_value(l, field, "{\"Sequence\": {...}} or {\"SpecialToken\": {...}}", it);
    char f[POST_FIELD], g[POST_FIELD + 16];
    tf_field_name(f, sizeof f, "%s.%s", field, body->string);
    if (!cJSON_IsObject(body))
        return bad_value(l, f, "an object {\"id\", \"type_id\"}", body);
    const cJSON *id = tf_field_item(body, "id");
    tf_field_name(g, sizeof g, "%s.id", f);
    if (is_seq && !(cJSON_IsString(id) &&
                    (strcmp(id->valuestring, "A") == 0 || strcmp(id->valuestring, "B") == 0)))
        return bad_value(l, g, "\"A\" or \"B\"", id);
    if (!cJSON_IsString(id))
        return bad_value(l, g, "a string", id);
    const cJSON *entry = is_seq ? NULL : tf_field_item(specials, id->valuestring);
    if (!is_seq && !entry)
        return tf_fail(TF_ERR_FORMAT, "%s: %s: \"%.*s\" is not in %s (tokenizers: Missing "
                       "SpecialToken(s) with id(s))", l->path, g,
                       tf_utf8_prefix(id->valuestring, 48), id->valuestring, specials_field);
    int32_t type_id = 0, ids[TF_MAX_TEMPLATE];
    int n = 0;
    tf_field_name(g, sizeof g, "%s.type_id", f);
    tf_status s = post_u32(l, tf_field_item(body, "type_id"), g, &type_id);
    if (s == TF_OK && entry) { /* checked with special_tokens */
        special_field(f, specials_field, id->valuestring);
        s = special_token(l, entry, f, ids, &n);
    }
    if (s)
        return s;
    if (t->n >= TF_MAX_TEMPLATE)
        return tf_field_bad(l, field, "at most 64 items");
    return tf_template_add(t, is_seq ? id->valuestring[0] - 'A' : -1, type_id, ids, (size_t)n)
               ? TF_OK
               : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", l->path);
}

static tf_status load_template(const tf_json_loader *l, const cJSON *o, const char *field)
{
    const char *keys[2] = {"single", "pair"};
    tf_template *dst[2] = {&l->tok->single, &l->tok->pair};
    const cJSON *specials = tf_field_item(o, "special_tokens");
    char specials_field[POST_FIELD];
    tf_field_name(specials_field, sizeof specials_field, "%s.special_tokens", field);
    tf_status s = check_special_tokens(l, specials, specials_field);
    for (int k = 0; s == TF_OK && k < 2; k++) {
        char f[POST_FIELD];
        tf_field_name(f, sizeof f, "%s.%s", field, keys[k]);
        const cJSON *list = tf_field_item(o, keys[k]), *it;
        if (!cJSON_IsArray(list))
            return bad_value(l, f, "an array", list);
        tf_template_destroy(dst[k]);
        dst[k]->window_types = 1;
        int i = 0;
        cJSON_ArrayForEach(it, list) {
            char g[POST_FIELD + 16];
            tf_field_name(g, sizeof g, "%s[%d]", f, i++);
            if ((s = template_item(l, specials, specials_field, it, g, dst[k])) != TF_OK)
                return s;
        }
        const char *fault = tf_template_fault(dst[k], k);
        if (fault) {
            char got[96];
            tf_json_describe(list, got, sizeof got);
            return tf_fail(TF_ERR_FORMAT, "%s: %s: %s, got %s", l->path, f, fault, got);
        }
    }
    return s;
}

/* $A and $A $B:1, what a file without a template gives. */
static tf_status plain_template(const tf_json_loader *l)
{
    tf_template_destroy(&l->tok->single);
    tf_template_destroy(&l->tok->pair);
    return tf_template_add(&l->tok->single, 0, 0, NULL, 0) &&
                   tf_template_add(&l->tok->pair, 0, 0, NULL, 0) &&
                   tf_template_add(&l->tok->pair, 1, 1, NULL, 0)
               ? TF_OK
               : tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", l->path);
}

/* The names of the first two processors of the loaded post-processor o (field) that add
 * special tokens (all but ByteLevel), Sequences walked in order, into adders from *n on. */
static void find_adders(const cJSON *o, const char *field, char adders[2][POST_FIELD], int *n)
{
    const char *type = tf_field_item(o, "type")->valuestring;
    if (strcmp(type, "Sequence") == 0) {
        const cJSON *p;
        int k = 0;
        cJSON_ArrayForEach(p, tf_field_item(o, "processors")) {
            char f[POST_FIELD];
            tf_field_name(f, sizeof f, "%s.processors[%d]", field, k++);
            find_adders(p, f, adders, n);
        }
    } else if (strcmp(type, "ByteLevel") != 0 && *n < 2) {
        tf_field_name(adders[(*n)++], POST_FIELD, "%s", field);
    }
}

static tf_status load_post_processor(const tf_json_loader *l, const cJSON *o, const char *field,
                                     int depth)
{
    if (tf_field_absent(o) && depth == 0) /* none */
        return TF_OK;
    char f[POST_FIELD];
    tf_field_name(f, sizeof f, "%s.type", field);
    if (!cJSON_IsObject(o))
        return bad_value(l, field, "an object with a \"type\"", o);
    if (!cJSON_IsString(tf_field_item(o, "type")))
        return bad_value(l, f, "a string", tf_field_item(o, "type"));
    const char *type = tf_field_item(o, "type")->valuestring;
    const int roberta = strcmp(type, "RobertaProcessing") == 0;
    int32_t cls = 0, sep = 0;
    tf_status s;
    if (strcmp(type, "ByteLevel") == 0) {
        s = post_bool(l, o, "add_prefix_space", field, 0);
        s = s ? s : post_bool(l, o, "trim_offsets", field, 0);
        return s ? s : post_bool(l, o, "use_regex", field, 1);
    }
    if (strcmp(type, "TemplateProcessing") == 0)
        return load_template(l, o, field);
    if (roberta || strcmp(type, "BertProcessing") == 0) {
        s = token_pair(l, o, "sep", field, &sep);
        s = s ? s : token_pair(l, o, "cls", field, &cls);
        if (roberta) {
            s = s ? s : post_bool(l, o, "trim_offsets", field, 0);
            s = s ? s : post_bool(l, o, "add_prefix_space", field, 0);
        }
        tf_template_destroy(&l->tok->single);
        tf_template_destroy(&l->tok->pair);
        if (s == TF_OK && !tf_template_cls_sep(&l->tok->single, &l->tok->pair, cls, sep, roberta))
            s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", l->path);
        return s;
    }
    if (strcmp(type, "Sequence") != 0)
        return tf_field_unsupported(l, field, type);
    s = load_sequence(l, o, field, "processors", depth, load_post_processor);
    char adders[2][POST_FIELD];
    int n = 0;
    if (s == TF_OK && depth == 0)
        find_adders(o, field, adders, &n);
    if (n == 2) /* tokenizers runs each on the one before's output: [CLS] [CLS] a [SEP] [SEP] */
        return tf_fail(TF_ERR_UNSUPPORTED, "%s: %s: a second processor that adds special tokens "
                       "(after %s) is not supported", l->path, adders[1], adders[0]);
    return s;
}

/* ---- Truncation and padding ------------------------------------------------------- */

static tf_status load_truncation(const tf_json_loader *l, const cJSON *o, int32_t max_length)
{
    tf_truncation *t = &l->tok->truncation;
    *t = (tf_truncation){max_length, TF_TRUNCATE_LONGEST_FIRST, 0, 0};
    if (tf_field_absent(o))
        return TF_OK;
    if (!cJSON_IsObject(o))
        return tf_field_bad(l, "truncation", "an object or null");
    const char *strategy, *direction;
    int32_t file_max;
    tf_status s = tf_field_int(l, tf_field_item(o, "max_length"), "truncation.max_length", 0,
                               INT32_MAX, 0, &file_max);
    if (s == TF_OK)
        s = tf_field_int(l, tf_field_item(o, "stride"), "truncation.stride", 0, INT32_MAX, 0,
                         &t->stride);
    if (s == TF_OK)
        s = tf_field_string(l, o, "strategy", "truncation.strategy", 1, &strategy);
    if (s == TF_OK)
        s = tf_field_string(l, o, "direction", "truncation.direction", 1, &direction);
    if (s)
        return s;
    t->max_length = max_length ? max_length : file_max;
    if (strcmp(strategy, "OnlyFirst") == 0)
        t->strategy = TF_TRUNCATE_ONLY_FIRST;
    else if (strcmp(strategy, "OnlySecond") == 0)
        t->strategy = TF_TRUNCATE_ONLY_SECOND;
    else if (strategy[0] && strcmp(strategy, "LongestFirst") != 0)
        return tf_field_bad(l, "truncation.strategy", "LongestFirst, OnlyFirst or OnlySecond");
    if (direction[0] && strcmp(direction, "Left") != 0 && strcmp(direction, "Right") != 0)
        return tf_field_bad(l, "truncation.direction", "Left or Right");
    t->left = strcmp(direction, "Left") == 0;
    return TF_OK;
}

static tf_status load_padding(const tf_json_loader *l, const cJSON *o)
{
    tf_tokenizer *tok = l->tok;
    const tf_added_token *pad = tf_added_find(&tok->added, "[PAD]", 5);
    pad = pad ? pad : tf_added_find(&tok->added, "<pad>", 5);
    tok->pad_id = pad ? pad->id : 0; /* rows of a batch are padded even without "padding" */
    if (tf_field_absent(o))
        return TF_OK;
    if (!cJSON_IsObject(o))
        return tf_field_bad(l, "padding", "an object or null");
    const char *direction = "";
    const cJSON *strategy = tf_field_item(o, "strategy");
    tf_status s = tf_field_int(l, tf_field_item(o, "pad_id"), "padding.pad_id", 0, INT32_MAX,
                               tok->pad_id, &tok->pad_id);
    if (s == TF_OK)
        s = tf_field_int(l, tf_field_item(o, "pad_type_id"), "padding.pad_type_id", 0, INT32_MAX, 0,
                         &tok->pad_type_id);
    if (s == TF_OK)
        s = tf_field_int(l, tf_field_item(o, "pad_to_multiple_of"), "padding.pad_to_multiple_of", 1,
                         1 << 20, 0, &tok->pad_multiple);
    if (s == TF_OK)
        s = tf_field_string(l, o, "direction", "padding.direction", 1, &direction);
    if (s == TF_OK && direction[0] && strcmp(direction, "Left") != 0 &&
        strcmp(direction, "Right") != 0)
        s = tf_field_bad(l, "padding.direction", "Left or Right");
    tok->pad_left = strcmp(direction, "Left") == 0;
    if (s == TF_OK && cJSON_IsObject(strategy))
        s = tf_field_int(l, tf_field_item(strategy, "Fixed"), "padding.strategy.Fixed", 1, 1 << 20,
                         0, &tok->pad_fixed);
    else if (s == TF_OK && !(cJSON_IsString(strategy) &&
                             strcmp(strategy->valuestring, "BatchLongest") == 0))
        s = tf_field_bad(l, "padding.strategy", "\"BatchLongest\" or {\"Fixed\": n}");
    return s;
}

/* ---- The file ---------------------------------------------------------------------- */

/* Every id the post-processor and padding add names a token: the model's
 * vocabulary or an added token. */
static tf_status check_added_ids(const tf_json_loader *l)
{
    const tf_tokenizer *tok = l->tok;
    const int32_t n = tf_tokenizer_vocab_size(tok);
    const tf_template *t[2] = {&tok->single, &tok->pair};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < t[k]->n; i++)
            for (size_t j = 0; j < t[k]->items[i].n_ids; j++)
                if (t[k]->items[i].ids[j] >= n)
                    return tf_fail(TF_ERR_FORMAT, "%s: post_processor: id %d is not a token "
                                   "(the vocabulary and added tokens have %d)", l->path,
                                   (int)t[k]->items[i].ids[j], (int)n);
    if (tok->pad_id >= n)
        return tf_fail(TF_ERR_FORMAT, "%s: padding.pad_id: id %d is not a token (the "
                       "vocabulary and added tokens have %d)", l->path, (int)tok->pad_id, (int)n);
    return TF_OK;
}

static tf_status load_root(const tf_json_loader *l, const cJSON *root,
                           const tf_tokenizer_options *o)
{
    if (!cJSON_IsObject(root))
        return tf_field_bad(l, "the file", "a JSON object");
    tf_status s = tf_json_model_load(l, tf_field_item(root, "model"));
    const cJSON *normalizer = tf_field_item(root, "normalizer"),
                *pre = tf_field_item(root, "pre_tokenizer");
    if (s == TF_OK && !tf_field_absent(normalizer))
        s = load_normalizer(l, normalizer, "normalizer", 0);
    if (s == TF_OK && !tf_field_absent(pre))
        s = load_pretokenizer(l, pre, "pre_tokenizer", 0);
    if (s == TF_OK && !tf_field_absent(tf_field_item(root, "decoder")))
        s = load_decoder(l, tf_field_item(root, "decoder"), "decoder", 0);
    if (s == TF_OK)
        s = load_added_tokens(l, tf_field_item(root, "added_tokens"));
    if (s == TF_OK)
        s = plain_template(l);
    if (s == TF_OK)
        s = load_post_processor(l, tf_field_item(root, "post_processor"), "post_processor", 0);
    if (s == TF_OK)
        s = load_truncation(l, tf_field_item(root, "truncation"), o->max_length);
    l->tok->model_max_length = l->tok->truncation.max_length;
    if (s == TF_OK)
        s = load_padding(l, tf_field_item(root, "padding"));
    if (s == TF_OK)
        s = check_added_ids(l);
    return s;
}

tf_status tf_tokenizer_json_load(tf_tokenizer *tok, const char *path,
                                 const tf_tokenizer_options *o)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf_file_read_all(path, TF_VOCAB_MAX_BYTES, &text, &len);
    if (s)
        return s;
    cJSON *root = NULL;
    s = tf_json_parse(text, len, TF_JSON_MAX_DEPTH, path, &root);
    const tf_json_loader l = {path, tok};
    if (s == TF_OK)
        s = load_root(&l, root, o);
    cJSON_Delete(root);
    tf_free(text);
    return s;
}
