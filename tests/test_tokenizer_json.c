/* test_tokenizer_json.c — tokenizers loaded from tokenizer.json against
 * Hugging Face's tokenizers (the files of tests/data/tokenizer_json, by
 * tests/tokenizer_json/gen_cases.js): every text and pair of each file
 * gives exactly the reference's ids and type ids; truncation with each
 * strategy; offsets (the reference's for WordPiece and character BPE, for
 * byte-level BPE the bytes each token holds, for the SentencePiece models
 * SentencePiece's own spans); the WordPiece fixtures of
 * tests/data/wordpiece from the equivalent tokenizer.json; hostile files. */
#define _GNU_SOURCE /* memmem, mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* ---- Files --------------------------------------------------------------------- */

static cJSON *read_json(const char *path)
{
    char *text = read_file(path, NULL);
    cJSON *j = cJSON_Parse(text);
    free(text);
    ck_assert_msg(j != NULL, "%s: not JSON", path);
    return j;
}

static path_buf fixture(const char *name, const char *file)
{
    return join(join(join(data_dir, "tokenizer_json").s, name).s, file);
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* j written to tmp_dir/name. */
static path_buf write_json(const cJSON *j, const char *name)
{
    char *text = cJSON_PrintUnformatted(j);
    const path_buf p = join(tmp_dir, name);
    write_file(p.s, text, strlen(text));
    free(text);
    return p;
}

static tf_tokenizer *load(const char *path)
{
    tf_tokenizer *tok;
    ck_assert_msg(tf_tokenizer_load(path, NULL, &tok) == TF_OK, "%s: %s", path, tf_last_error());
    return tok;
}

/* ---- Comparing with the reference --------------------------------------------------- */

/* The code point offset of byte b of text. */
static int64_t char_offset(const char *text, int64_t b)
{
    int64_t n = 0;
    for (int64_t i = 0; i < b; i++)
        n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

/* Token t's code point offset (begin, or end when `end`) in row 0 of e,
 * which must be its byte offset in src counted in code points. */
static int64_t char_span(const tf_encoding *e, int32_t t, const char *src, int end)
{
    const int64_t chars = tf_encoding_char_offsets(e)[2 * t + end];
    ck_assert_int_eq(chars, char_offset(src, tf_encoding_offsets(e)[2 * t + end]));
    return chars;
}

static int same_ints(const int32_t *got, const cJSON *want, int32_t n)
{
    if (cJSON_GetArraySize(want) != n)
        return 0;
    for (int32_t i = 0; i < n; i++)
        if (got[i] != cJSON_GetArrayItem(want, i)->valueint)
            return 0;
    return 1;
}

/* Whether the code points [from, to) of text are all combining marks. */
static int only_marks(const char *text, int64_t from, int64_t to)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    int64_t k = 0;
    for (utf8proc_int32_t cp; *p && k < to; k++) {
        p += utf8proc_iterate(p, -1, &cp);
        if (k >= from && utf8proc_get_property(cp)->combining_class == 0)
            return 0;
    }
    return k == to;
}

/* Whether e's row 0 has the offsets the reference gives (in code points of
 * the text or pair the token came from). One difference is by design: a
 * character composed of several (NFC, NFKC) spans them all here, where
 * tokenizers gives it its first one's span, so a token may end after the
 * reference's end by the combining marks composed into it; and marks put
 * in canonical order keep their own spans here (tokenizers leaves the
 * spans where they were), so a mark's token may span another mark. */
static int same_offsets(const tf_encoding *e, const cJSON *c)
{
    const cJSON *want = cJSON_GetObjectItem(c, "offsets");
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    const cJSON *pair = cJSON_GetObjectItem(c, "pair");
    const int32_t n = tf_encoding_lengths(e)[0];
    for (int32_t t = 0; t < n; t++) {
        const char *src = tf_encoding_type_ids(e)[t] && pair ? pair->valuestring : text;
        const cJSON *w = cJSON_GetArrayItem(want, t);
        const int64_t begin = char_span(e, t, src, 0), end = char_span(e, t, src, 1);
        const int64_t want_begin = cJSON_GetArrayItem(w, 0)->valueint;
        const int64_t want_end = cJSON_GetArrayItem(w, 1)->valueint;
        const int composed = begin == want_begin && end > want_end &&
            only_marks(src, want_end, end);
        const int reordered = only_marks(src, begin, end) && only_marks(src, want_begin, want_end);
        if ((begin != want_begin || end != want_end) && !composed && !reordered)
            return 0;
    }
    return 1;
}

static void report(const tf_tokenizer *tok, const char *name, const cJSON *c, const tf_encoding *e)
{
    fprintf(stderr, "%s: \"%s\"", name, cJSON_GetObjectItem(c, "text")->valuestring);
    if (cJSON_GetObjectItem(c, "pair"))
        fprintf(stderr, " + \"%s\"", cJSON_GetObjectItem(c, "pair")->valuestring);
    fprintf(stderr, "\n  got ");
    for (int32_t i = 0; e && i < tf_encoding_lengths(e)[0]; i++)
        fprintf(stderr, "%d:%s ", tf_encoding_ids(e)[i],
                tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[i]));
    fprintf(stderr, "\n  want ");
    const cJSON *id;
    cJSON_ArrayForEach(id, cJSON_GetObjectItem(c, "ids"))
        fprintf(stderr, "%d:%s ", id->valueint, tf_tokenizer_id_to_token(tok, id->valueint));
    fprintf(stderr, "\n");
}

/* Encodes case c ({"text", "pair"?, ...}) alone. */
static tf_encoding *encode_case(const tf_tokenizer *tok, const cJSON *c)
{
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    const cJSON *pair = cJSON_GetObjectItem(c, "pair");
    tf_encoding *e;
    const tf_status s = tf_tokenizer_encode(tok, text, strlen(text),
                                            pair ? pair->valuestring : NULL,
                                            pair ? strlen(pair->valuestring) : 0, &e);
    ck_assert_msg(s == TF_OK, "\"%s\": %s", text, tf_last_error());
    return e;
}

/* Whether decoding c's ids (skipping the special tokens or not) gives the
 * reference's text. */
static int decodes_as(const tf_tokenizer *tok, const cJSON *c, int skip, const char *key)
{
    const cJSON *want = cJSON_GetObjectItem(c, key), *id;
    int32_t *ids = malloc(((size_t)cJSON_GetArraySize(cJSON_GetObjectItem(c, "ids")) + 1) *
                          sizeof *ids);
    size_t n = 0, len = 0;
    cJSON_ArrayForEach(id, cJSON_GetObjectItem(c, "ids")) ids[n++] = id->valueint;
    ck_assert_int_eq(tf_tokenizer_decode(tok, ids, n, skip, NULL, 0, &len), TF_OK);
    char *text = malloc(len + 1);
    ck_assert_int_eq(tf_tokenizer_decode(tok, ids, n, skip, text, len + 1, &len), TF_OK);
    const int same = strcmp(text, want->valuestring) == 0;
    if (!same)
        fprintf(stderr, "decoding \"%s\"%s gives \"%s\", not \"%s\"\n",
                cJSON_GetObjectItem(c, "text")->valuestring, skip ? " (skipping specials)" : "",
                text, want->valuestring);
    free(text);
    free(ids);
    return same;
}

/* Whether c's ids and type ids (and offsets when asked) are the reference's. */
static int matches(const tf_tokenizer *tok, const char *name, const cJSON *c, int offsets)
{
    tf_encoding *e = encode_case(tok, c);
    const int32_t n = tf_encoding_lengths(e)[0];
    int same = same_ints(tf_encoding_ids(e), cJSON_GetObjectItem(c, "ids"), n) &&
        same_ints(tf_encoding_type_ids(e), cJSON_GetObjectItem(c, "type_ids"), n);
    if (!same)
        report(tok, name, c, e);
    else if (offsets && !same_offsets(e, c)) {
        fprintf(stderr, "%s: offsets of \"%s\" differ\n", name,
                cJSON_GetObjectItem(c, "text")->valuestring);
        same = 0;
    }
    if (same && cJSON_GetObjectItem(c, "decoded"))
        same = decodes_as(tok, c, 0, "decoded") &&
            decodes_as(tok, c, 1, "decoded_skipping_specials");
    tf_encoding_destroy(e);
    return same;
}

/* ---- Byte-level offsets ------------------------------------------------------------ */

/* The bytes of a byte-level token (GPT-2's characters back to bytes) into
 * out; their number. */
static size_t byte_level_bytes(const char *token, unsigned char *out)
{
    int32_t to_byte[512];
    for (int b = 0, extra = 0; b < 256; b++) {
        const int printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        to_byte[printable ? b : 256 + extra++] = b;
    }
    size_t n = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)token;
    for (utf8proc_int32_t cp; *p;) {
        p += utf8proc_iterate(p, -1, &cp);
        out[n++] = (unsigned char)to_byte[cp < 512 ? cp : 0];
    }
    return n;
}

/* Every token of a byte-level encoding holds bytes of its span: the whole
 * span (NFC-normalised when nfc) when the token is whole characters, a part
 * of it otherwise; a space the pre-tokenizer put before a piece spans the
 * character it was put before. */
static void check_byte_level_offsets(const tf_tokenizer *tok, const cJSON *c, int nfc,
                                     int *tokens_checked)
{
    tf_encoding *e = encode_case(tok, c);
    const char *src = cJSON_GetObjectItem(c, "text")->valuestring, *text = src;
    for (int32_t t = 0; t < tf_encoding_lengths(e)[0]; t++) {
        const int64_t b = tf_encoding_offsets(e)[2 * t], end = tf_encoding_offsets(e)[2 * t + 1];
        const char *token = tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[t]);
        if (b == end || strstr(token, "<") == token) /* a special token */
            continue;
        ck_assert_int_le(end, (int64_t)strlen(src));
        unsigned char bytes[1024];
        size_t n = byte_level_bytes(token, bytes);
        const unsigned char *got = bytes;
        if (n && got[0] == ' ' && src[b] != ' ') /* the prefix space */
            got++, n--;
        if (n == 0) /* the prefix space alone: it spans the character it was put before */
            continue;
        char span[4096];
        snprintf(span, sizeof span, "%.*s", (int)(end - b), src + b);
        utf8proc_uint8_t *normal = nfc ? utf8proc_NFC((const utf8proc_uint8_t *)span) : NULL;
        const char *want = normal ? (const char *)normal : span;
        const int whole = utf8proc_decompose((const utf8proc_uint8_t *)got, (utf8proc_ssize_t)n,
                                             NULL, 0, 0) >= 0;
        if (whole)
            ck_assert_msg(strlen(want) == n && memcmp(want, got, n) == 0,
                          "\"%s\": token %d \"%s\" spans \"%s\"", text, t, token, want);
        else
            ck_assert_msg(n > 0 && memmem(want, strlen(want), got, n) != NULL,
                          "\"%s\": token %d \"%s\" (part of a character) spans \"%s\"", text, t,
                          token, want);
        free(normal);
        ++*tokens_checked;
    }
    tf_encoding_destroy(e);
}

/* ---- SentencePiece's spans ------------------------------------------------------------- */

/* Code point k of text. */
static int32_t code_point(const char *text, int64_t k)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    utf8proc_int32_t cp = -1;
    for (int64_t i = 0; i <= k && *p; i++)
        p += utf8proc_iterate(p, -1, &cp);
    return cp;
}

/* Whether where a span of ours and SentencePiece's may differ by the code
 * point: one the normaliser removes or merges into a neighbour (whitespace,
 * controls, format characters, marks, U+FFFD) or one it expands into several (a
 * compatibility character such as U+FB01 "ﬁ", whose parts can go to two
 * tokens: SentencePiece gives it to the first, here both span it). */
static int may_differ(int32_t cp)
{
    const utf8proc_category_t c = utf8proc_category(cp);
    utf8proc_int32_t parts[32];
    int boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(
        cp, parts, 32, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT, &boundclass);
    static const utf8proc_category_t removable[] = {
        UTF8PROC_CATEGORY_ZS, UTF8PROC_CATEGORY_ZL, UTF8PROC_CATEGORY_ZP, UTF8PROC_CATEGORY_CC,
        UTF8PROC_CATEGORY_CF, UTF8PROC_CATEGORY_CS, UTF8PROC_CATEGORY_CO, UTF8PROC_CATEGORY_CN,
        UTF8PROC_CATEGORY_MN, UTF8PROC_CATEGORY_MC, UTF8PROC_CATEGORY_ME};
    for (size_t k = 0; k < sizeof removable / sizeof removable[0]; k++)
        if (c == removable[k])
            return 1;
    return n > 1 || cp == 0xFFFD;
}

/* The tokens of text c (a single text, whose ids between the template's
 * specials are SentencePiece's) against SentencePiece's spans: the same,
 * or (counted in *near) a span SentencePiece leaves empty (the "▁" it puts
 * first, the first bytes of a character made of byte tokens) that ours
 * contains, or an overlapping one that differs only by code points
 * may_differ allows. 0 when neither. */
static int spm_offsets_agree(const tf_tokenizer *tok, const cJSON *c, int *exact, int *near)
{
    const cJSON *want_ids = cJSON_GetObjectItem(c, "spm_ids");
    const cJSON *want = cJSON_GetObjectItem(c, "spm_offsets");
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    tf_encoding *e = encode_case(tok, c);
    const int32_t n = tf_encoding_lengths(e)[0], m = cJSON_GetArraySize(want_ids);
    const int32_t first = 1; /* the template's <s> */
    int ok = 1;
    if (!same_ints(tf_encoding_ids(e) + first, want_ids, m)) { /* ties, <mask>: gen_cases.js */
        tf_encoding_destroy(e);
        return 1;
    }
    for (int32_t t = 0; t < m && first + t < n; t++) {
        const int64_t b = char_span(e, first + t, text, 0), end = char_span(e, first + t, text, 1);
        const cJSON *w = cJSON_GetArrayItem(want, t);
        const int64_t wb = cJSON_GetArrayItem(w, 0)->valueint;
        const int64_t we = cJSON_GetArrayItem(w, 1)->valueint;
        if (b == wb && end == we) {
            ++*exact;
            continue;
        }
        const int empty = wb == we;
        int agree = empty ? b <= wb && wb <= end : b < we && wb < end;
        for (int64_t k = b < wb ? b : wb; agree && !empty && k < (end > we ? end : we); k++)
            if ((k >= b && k < end) != (k >= wb && k < we))
                agree = may_differ(code_point(text, k));
        if (!agree) {
            fprintf(stderr,
                    "\"%s\": token %d %s spans [%lld, %lld), SentencePiece's "
                    "[%lld, %lld)\n",
                    text, (int)t, tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[first + t]),
                    (long long)b, (long long)end, (long long)wb, (long long)we);
            ok = 0;
        }
        ++*near;
    }
    tf_encoding_destroy(e);
    return ok;
}

/* ---- The reference's cases ------------------------------------------------------------ */

typedef struct fixture_file {
    const char *name;
    int byte_level; /* offsets by the byte property instead of the reference's */
    int nfc;
    int spm; /* offsets against SentencePiece's spans instead of tokenizers' */
} fixture_file;

/* tokenizers' offsets for the SentencePiece models are SentencePiece's
 * except where its Precompiled alignment goes wrong: a character the
 * charsmap removes at the start of a text moves every later span one code
 * point back ("\x07\t[MASK]": "▁[" at [0, 2)). */
static const fixture_file fixtures[] = {
    {"bert_uncased", 0, 0, 0}, {"bert_cased", 0, 0, 0},    {"qwen3", 1, 1, 0},
    {"roberta", 1, 0, 0},      {"bpe_chars", 0, 0, 0},     {"bpe_bytes", 0, 0, 0},
    {"unigram", 0, 0, 1},      {"unigram_bytes", 0, 0, 1}, {"spm_bpe", 0, 0, 1},
};

START_TEST(test_cases_match_hugging_face)
{
    const fixture_file *f = &fixtures[_i];
    tf_tokenizer *tok = load(fixture(f->name, "tokenizer.json").s);
    cJSON *cases = read_json(fixture(f->name, "cases.json").s);
    const cJSON *c;
    int n = 0, failures = 0, checked = 0, exact = 0, near = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, "cases"))
    {
        n++;
        failures += !matches(tok, f->name, c, !f->byte_level && !f->spm);
        if (f->byte_level && !cJSON_GetObjectItem(c, "pair")) /* each pair's texts are cases */
            check_byte_level_offsets(tok, c, f->nfc, &checked);
        if (f->spm && !cJSON_GetObjectItem(c, "pair"))
            failures += !spm_offsets_agree(tok, c, &exact, &near);
    }
    printf("%s: %d of %d texts and pairs match Hugging Face exactly%s, texts decoded too\n",
           f->name, n - failures, n, f->byte_level || f->spm ? "" : " (offsets too)");
    if (f->byte_level)
        printf("%s: %d tokens hold exactly the bytes of their offsets\n", f->name, checked);
    if (f->spm)
        printf("%s: %d token spans are SentencePiece's, %d differ only where allowed\n", f->name,
               exact, near);
    ck_assert_int_ge(n, 400);
    ck_assert_int_eq(failures, 0);
    cJSON_Delete(cases);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* The file with its truncation set to {max_length, strategy}. */
static tf_tokenizer *load_truncating(const char *name, int max_length, const char *strategy)
{
    cJSON *j = read_json(fixture(name, "tokenizer.json").s);
    cJSON *t = cJSON_CreateObject();
    cJSON_AddNumberToObject(t, "max_length", max_length);
    cJSON_AddStringToObject(t, "strategy", strategy);
    cJSON_AddNumberToObject(t, "stride", 0);
    cJSON_AddStringToObject(t, "direction", "Right");
    cJSON_ReplaceItemInObject(j, "truncation", t);
    make_tmp_dir();
    const path_buf p = write_json(j, "tokenizer.json");
    tf_tokenizer *tok = load(p.s);
    remove_tmp_dir();
    cJSON_Delete(j);
    return tok;
}

START_TEST(test_truncation_matches_hugging_face)
{
    const fixture_file *f = &fixtures[_i];
    cJSON *cases = read_json(fixture(f->name, "cases.json").s);
    const char *names[3][2] = {{"longest_first", "LongestFirst"},
                               {"only_first", "OnlyFirst"},
                               {"only_second", "OnlySecond"}};
    int n = 0, failures = 0;
    for (int k = 0; k < 3; k++)
        for (int max_length = 8; max_length <= 13; max_length += 5) {
            tf_tokenizer *tok = load_truncating(f->name, max_length, names[k][1]);
            const cJSON *c;
            cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, "truncated"))
            {
                if (strcmp(cJSON_GetObjectItem(c, "strategy")->valuestring, names[k][0]) != 0 ||
                    cJSON_GetObjectItem(c, "max_length")->valueint != max_length)
                    continue;
                n++;
                failures += !matches(tok, f->name, c, 0);
            }
            tf_tokenizer_destroy(tok);
        }
    printf("%s: %d of %d truncated pairs match Hugging Face exactly\n", f->name, n - failures, n);
    ck_assert_int_ge(n, 40);
    ck_assert_int_eq(failures, 0);
    cJSON_Delete(cases);
}
END_TEST

/* The truncated cases through the caller's options on the file as it is
 * (no truncation of its own): the same ids as the file's own truncation. */
START_TEST(test_truncation_options_match_hugging_face)
{
    const fixture_file *f = &fixtures[_i];
    tf_tokenizer *tok = load(fixture(f->name, "tokenizer.json").s);
    cJSON *cases = read_json(fixture(f->name, "cases.json").s);
    static const char *const names[] = {"longest_first", "only_first", "only_second"};
    int n = 0, failures = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, "truncated"))
    {
        tf_encode_options o;
        tf_encode_options_init(&o);
        for (int k = 0; k < 3; k++)
            if (!strcmp(cJSON_GetObjectItem(c, "strategy")->valuestring, names[k]))
                o.truncation = TF_TRUNCATION_LONGEST_FIRST + k;
        o.max_length = cJSON_GetObjectItem(c, "max_length")->valueint;
        const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
        const char *pair = cJSON_GetObjectItem(c, "pair")->valuestring;
        tf_encoding *e;
        ck_assert_msg(tf_tokenizer_encode_batch_with(tok, 1, &text, NULL, &pair, NULL, &o, &e) ==
                          TF_OK,
                      "%s", tf_last_error());
        const int32_t len = tf_encoding_lengths(e)[0];
        failures += !same_ints(tf_encoding_ids(e), cJSON_GetObjectItem(c, "ids"), len) ||
            !same_ints(tf_encoding_type_ids(e), cJSON_GetObjectItem(c, "type_ids"), len);
        n++;
        tf_encoding_destroy(e);
    }
    printf("%s: %d of %d truncated pairs match through tf_encode_options\n", f->name, n - failures,
           n);
    ck_assert_int_ge(n, 40);
    ck_assert_int_eq(failures, 0);
    cJSON_Delete(cases);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* Padding as the caller asks (to max_length, to a multiple, on the left),
 * a folder's tokenizer_config.json (model_max_length, pad_token), and the
 * options' bad values refused by name. */
START_TEST(test_padding_options_and_config)
{
    make_tmp_dir();
    cJSON *j = read_json(fixture("bert_uncased", "tokenizer.json").s);
    write_json(j, "tokenizer.json");
    const char config[] = "{\"model_max_length\": 6, \"pad_token\": {\"content\": \"[MASK]\"}}";
    write_file(join(tmp_dir, "tokenizer_config.json").s, config, sizeof config - 1);
    tf_tokenizer *tok = load(tmp_dir);
    ck_assert_int_eq(tf_tokenizer_model_max_length(tok), 6);
    const int32_t mask = tf_tokenizer_token_to_id(tok, "[MASK]");
    const char *texts[2] = {"hello world, a long text of many words", "hi"};
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_LONGEST_FIRST; /* to model_max_length */
    o.pad_to_multiple_of = 4;
    o.pad_left = 1;
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_seq_len(e), 8);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 6);
    const int32_t short_len = tf_encoding_lengths(e)[1]; /* [CLS] hi [SEP], as pieces */
    ck_assert_int_lt(short_len, 6);
    const int32_t *ids = tf_encoding_ids(e), *mask_of = tf_encoding_attention_mask(e);
    for (int t = 0; t < 8; t++) { /* padding first, with the config's pad_token */
        ck_assert_int_eq(mask_of[t], t >= 2);
        ck_assert_int_eq(mask_of[8 + t], t >= 8 - short_len);
        if (t < 8 - short_len)
            ck_assert_int_eq(ids[8 + t], mask);
    }
    ck_assert_int_eq(ids[2], tf_tokenizer_token_to_id(tok, "[CLS]"));
    ck_assert_int_eq(tf_encoding_char_offsets(e)[2 * 3 + 1], 5); /* "hello" */
    tf_encoding_destroy(e);
    tf_encode_options_init(&o);
    o.pad_to_max_length = 1;
    o.max_length = 12;
    ck_assert_int_eq(tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_seq_len(e), 12);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 12); /* cut at max_length: the tokenizer's own
                                                        truncation with the caller's length */
    tf_encoding_destroy(e);
    e = (tf_encoding *)&e;
    o.truncation = 5;
    expect_failure(tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
                   TF_ERR_INVALID_ARGUMENT, "options.truncation: expected 0..4");
    ck_assert_ptr_null(e);
    o.truncation = 0, o.pad_left = 2;
    expect_failure(
        tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
        TF_ERR_INVALID_ARGUMENT,
        "options.pad_left: expected 1 (left), -1 (right) or 0 (as the tokenizer), got 2");
    tf_tokenizer_destroy(tok);
    tok = load(fixture("bert_uncased", "tokenizer.json").s); /* no model_max_length */
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_ONLY_FIRST;
    expect_failure(tf_tokenizer_encode_batch_with(tok, 2, texts, NULL, NULL, NULL, &o, &e),
                   TF_ERR_INVALID_ARGUMENT,
                   "options.max_length: 0, and the tokenizer has no "
                   "model_max_length for truncation");
    tf_tokenizer_destroy(tok);
    /* a pad_token that is no token: transformers adds it as a special token
       (PreTrainedTokenizerFast.__init__), at the next id */
    const char new_pad[] = "{\"pad_token\": \"<nope>\"}";
    write_file(join(tmp_dir, "tokenizer_config.json").s, new_pad, sizeof new_pad - 1);
    tok = load(fixture("bert_uncased", "tokenizer.json").s);
    const int32_t next_id = tf_tokenizer_vocab_size(tok);
    tf_tokenizer_destroy(tok);
    tok = load(tmp_dir);
    ck_assert_int_eq(tf_tokenizer_vocab_size(tok), next_id + 1);
    ck_assert_int_eq(tf_tokenizer_token_to_id(tok, "<nope>"), next_id);
    ck_assert_int_eq(tf_tokenizer_encode_batch(tok, 2, texts, NULL, NULL, NULL, &e), TF_OK);
    ck_assert_int_eq(tf_encoding_ids(e)[tf_encoding_seq_len(e) * 2 - 1], next_id);
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(j);
}
END_TEST

/* ---- tests/data/wordpiece from tokenizer.json ------------------------------------------- */

/* bert_uncased's file with BertNormalizer's lowercase and strip_accents set. */
static tf_tokenizer *load_bert(int lowercase, int strip_accents)
{
    cJSON *j = read_json(fixture("bert_uncased", "tokenizer.json").s);
    cJSON *n = cJSON_GetObjectItem(j, "normalizer");
    cJSON_ReplaceItemInObject(n, "lowercase", cJSON_CreateBool(lowercase));
    cJSON_ReplaceItemInObject(n, "strip_accents",
                              strip_accents < 0 ? cJSON_CreateNull()
                                                : cJSON_CreateBool(strip_accents));
    make_tmp_dir();
    const path_buf p = write_json(j, "tokenizer.json");
    tf_tokenizer *tok = load(tmp_dir); /* the directory: its tokenizer.json */
    (void)p;
    remove_tmp_dir();
    cJSON_Delete(j);
    return tok;
}

static int wordpiece_case_matches(const tf_tokenizer *tok, const cJSON *c)
{
    const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e), TF_OK);
    const int same = same_ints(tf_encoding_ids(e), cJSON_GetObjectItem(c, "ids"),
                               tf_encoding_lengths(e)[0]);
    if (!same)
        fprintf(stderr, "wordpiece: \"%s\" differs\n", text);
    tf_encoding_destroy(e);
    return same;
}

START_TEST(test_wordpiece_fixtures_from_tokenizer_json)
{
    cJSON *cases = read_json(join(data_dir, "wordpiece/cases.json").s);
    cJSON *normaliser = read_json(join(data_dir, "wordpiece/normaliser_cases.json").s);
    int n = 0, failures = 0;
    for (int cased = 0; cased < 2; cased++) {
        tf_tokenizer *tok = load_bert(!cased, -1);
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(cases, cased ? "cased" : "uncased"))
        {
            n++;
            failures += !wordpiece_case_matches(tok, c);
        }
        tf_tokenizer_destroy(tok);
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(normaliser, "cases"))
    {
        tf_tokenizer *tok = load_bert(cJSON_GetObjectItem(c, "lowercase")->valueint,
                                      cJSON_GetObjectItem(c, "strip_accents")->valueint);
        n++;
        failures += !wordpiece_case_matches(tok, c);
        tf_tokenizer_destroy(tok);
    }
    printf("wordpiece fixtures from tokenizer.json: %d of %d match\n", n - failures, n);
    ck_assert_int_gt(n, 250);
    ck_assert_int_eq(failures, 0);
    cJSON_Delete(cases);
    cJSON_Delete(normaliser);
}
END_TEST

/* ---- The file's own truncation and padding ----------------------------------------------- */

START_TEST(test_file_truncation_and_padding)
{
    tf_tokenizer *tok = load(fixture("roberta", "tokenizer.json").s); /* max_length 96, <pad> */
    const int32_t pad = tf_tokenizer_token_to_id(tok, "<pad>");
    ck_assert_int_gt(pad, 0);
    char long_text[2000];
    memset(long_text, 0, sizeof long_text);
    for (int i = 0; i < 150; i++)
        strcat(long_text, "word ");
    const char *texts[2] = {long_text, "short"};
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode_batch(tok, 2, texts, NULL, NULL, NULL, &e), TF_OK);
    ck_assert_int_eq(tf_encoding_seq_len(e), 96);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], 96);
    ck_assert_int_eq(tf_encoding_ids(e)[95], tf_tokenizer_token_to_id(tok, "</s>"));
    const int32_t short_len = tf_encoding_lengths(e)[1];
    tf_encoding *alone;
    ck_assert_int_eq(tf_tokenizer_encode(tok, "short", 5, NULL, 0, &alone), TF_OK);
    ck_assert_int_eq(short_len, tf_encoding_lengths(alone)[0]); /* <s> Ġsh ort </s> */
    ck_assert_int_eq(tf_encoding_seq_len(alone), short_len);    /* padding only in a batch */
    tf_encoding_destroy(alone);
    for (int t = short_len; t < 96; t++) {
        ck_assert_int_eq(tf_encoding_ids(e)[96 + t], pad);
        ck_assert_int_eq(tf_encoding_attention_mask(e)[96 + t], 0);
    }
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* ---- Loading: directories, vocab.txt, lookups ------------------------------------------------ */

START_TEST(test_directories_and_lookups)
{
    tf_tokenizer *dir = load(join(data_dir, "tokenizer_json/qwen3").s);
    tf_tokenizer *file = load(fixture("qwen3", "tokenizer.json").s);
    ck_assert_int_eq(tf_tokenizer_vocab_size(dir), tf_tokenizer_vocab_size(file));
    const int32_t eot = tf_tokenizer_token_to_id(file, "<|endoftext|>");
    ck_assert_int_eq(eot, tf_tokenizer_vocab_size(file) - 26); /* the first of 26 added after
                                                                   the model's vocabulary */
    ck_assert_str_eq(tf_tokenizer_id_to_token(file, eot), "<|endoftext|>");
    ck_assert_str_eq(tf_tokenizer_id_to_token(file, tf_tokenizer_token_to_id(file, "Ġthe")),
                     "Ġthe");
    ck_assert_ptr_null(tf_tokenizer_id_to_token(file, tf_tokenizer_vocab_size(file)));
    tf_tokenizer_destroy(dir);
    tf_tokenizer_destroy(file);
    /* a directory with only vocab.txt loads it, as before */
    tf_tokenizer *vocab = load(join(data_dir, "wordpiece").s);
    ck_assert_int_eq(tf_tokenizer_vocab_size(vocab), 6841);
    tf_tokenizer_destroy(vocab);
}
END_TEST

/* ---- Hostile files ------------------------------------------------------------------------- */

/* bert_uncased's or qwen3's file with `edit` applied, loaded: its status
 * and message. */
static void expect_load_failure(const char *name, void (*edit)(cJSON *), tf_status status,
                                const char *text)
{
    cJSON *j = read_json(fixture(name, "tokenizer.json").s);
    edit(j);
    make_tmp_dir();
    const path_buf p = write_json(j, "tokenizer.json");
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(p.s, NULL, &tok), status, text);
    ck_assert_ptr_null(tok);
    remove_tmp_dir();
    cJSON_Delete(j);
}

static void unknown_normalizer(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "normalizer"), "type",
                              cJSON_CreateString("NoSuchNormalizer"));
}

static void unknown_model(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "model"), "type",
                              cJSON_CreateString("WordLevel"));
}

static void vocab_is_array(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "model"), "vocab", cJSON_CreateArray());
}

static void id_twice(cJSON *j)
{
    cJSON *vocab = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "vocab");
    cJSON_ReplaceItemInObject(vocab, "!", cJSON_CreateNumber(1));
}

static void id_out_of_range(cJSON *j)
{
    cJSON *vocab = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "vocab");
    cJSON_ReplaceItemInObject(vocab, "the", cJSON_CreateNumber(1e9));
}

static void merge_of_unknown_token(cJSON *j)
{
    cJSON *merges = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "merges");
    cJSON_ReplaceItemInArray(merges, 0, cJSON_CreateString("nosuchtoken x"));
}

static void bad_regex(cJSON *j)
{
    cJSON *split = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "pre_tokenizer"), "pretokenizers"), 0);
    cJSON *pattern = cJSON_CreateObject();
    cJSON_AddStringToObject(pattern, "Regex", "(unclosed");
    cJSON_ReplaceItemInObject(split, "pattern", pattern);
}

static void wrong_flag_type(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "added_tokens"), 2),
                              "special", cJSON_CreateString("yes"));
}

static void template_id_out_of_range(cJSON *j)
{
    cJSON *cls = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "post_processor"), "cls");
    cJSON_ReplaceItemInArray(cls, 1, cJSON_CreateNumber(1e6));
}

static void unknown_pretokenizer(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "pre_tokenizer"), "type",
                              cJSON_CreateString("UnicodeScripts"));
}

/* unigram's Precompiled normalizer (the first of its Sequence). */
static cJSON *precompiled(cJSON *j)
{
    return cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "normalizer"), "normalizers"), 0);
}

static void charsmap_not_base64(cJSON *j)
{
    cJSON_ReplaceItemInObject(precompiled(j), "precompiled_charsmap", cJSON_CreateString("a*b="));
}

static void charsmap_trie_too_long(cJSON *j)
{
    /* "/////w==": the bytes ff ff ff ff, a trie of 4294967295 bytes in 4 */
    cJSON_ReplaceItemInObject(precompiled(j), "precompiled_charsmap",
                              cJSON_CreateString("/////w=="));
}

static void charsmap_not_utf8(cJSON *j)
{
    /* "AAAAAP8=": a trie of 0 bytes, then the byte ff as replacement text */
    cJSON_ReplaceItemInObject(precompiled(j), "precompiled_charsmap",
                              cJSON_CreateString("AAAAAP8="));
}

static void piece_twice(cJSON *j)
{
    cJSON *vocab = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "vocab");
    cJSON_ReplaceItemInArray(cJSON_GetArrayItem(vocab, 7), 0, cJSON_CreateString("<s>"));
}

static void piece_without_score(cJSON *j)
{
    cJSON *vocab = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "model"), "vocab");
    cJSON_ReplaceItemInArray(cJSON_GetArrayItem(vocab, 5), 1, cJSON_CreateString("high"));
}

static void unk_id_out_of_range(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "model"), "unk_id", cJSON_CreateNumber(1e6));
}

static void unk_id_past_int64(cJSON *j) /* a double no integer type holds: found by fuzzing */
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "model"), "unk_id", cJSON_CreateNumber(2e52));
}

static void prepend_scheme_unknown(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "pre_tokenizer"), "prepend_scheme",
                              cJSON_CreateString("sometimes"));
}

static void replacement_two_chars(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "pre_tokenizer"), "replacement",
                              cJSON_CreateString("__"));
}

/* "" read as one character looked past the string (fuzz_tokenizer_json's
 * heap overflow in the Strip decoder, replayed): so for both fields. */
static void replacement_empty(cJSON *j)
{
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "pre_tokenizer"), "replacement",
                              cJSON_CreateString(""));
}

static void strip_decoder_content_empty(cJSON *j)
{
    cJSON_ReplaceItemInObject(j, "decoder",
                              cJSON_Parse("{\"type\": \"Strip\", \"content\": \"\", "
                                          "\"start\": 1, \"stop\": 0}"));
}

START_TEST(test_hostile_files)
{
    expect_load_failure("bert_uncased", unknown_normalizer, TF_ERR_UNSUPPORTED,
                        "normalizer: type \"NoSuchNormalizer\" is not supported");
    expect_load_failure("bert_uncased", unknown_model, TF_ERR_UNSUPPORTED,
                        "model: type \"WordLevel\" is not supported");
    expect_load_failure("bert_uncased", unknown_pretokenizer, TF_ERR_UNSUPPORTED,
                        "pre_tokenizer: type \"UnicodeScripts\" is not supported");
    expect_load_failure("unigram", charsmap_not_base64, TF_ERR_FORMAT,
                        "normalizer.normalizers[0].precompiled_charsmap: expected base64");
    expect_load_failure("unigram", charsmap_trie_too_long, TF_ERR_FORMAT,
                        "normalizer.normalizers[0].precompiled_charsmap: a charsmap of 4 bytes "
                        "cannot hold a trie of 4294967295 bytes");
    expect_load_failure("unigram", charsmap_not_utf8, TF_ERR_FORMAT,
                        "precompiled_charsmap: the replacement text is not valid UTF-8 (at its "
                        "byte 0)");
    expect_load_failure("unigram", piece_twice, TF_ERR_FORMAT,
                        "model.vocab[0]: \"<s>\" is also model.vocab[7] (each piece once)");
    expect_load_failure("unigram", piece_without_score, TF_ERR_FORMAT,
                        "model.vocab[5]: expected [piece, score]");
    expect_load_failure("unigram", unk_id_out_of_range, TF_ERR_FORMAT,
                        "model.unk_id: expected an integer in 0..1501");
    expect_load_failure("unigram", unk_id_past_int64, TF_ERR_FORMAT,
                        "model.unk_id: expected an integer in 0..1501");
    expect_load_failure("unigram", prepend_scheme_unknown, TF_ERR_FORMAT,
                        "pre_tokenizer.prepend_scheme: expected \"always\", \"first\" or "
                        "\"never\"");
    expect_load_failure("unigram", replacement_two_chars, TF_ERR_FORMAT,
                        "pre_tokenizer.replacement: expected one character");
    expect_load_failure("unigram", replacement_empty, TF_ERR_FORMAT,
                        "pre_tokenizer.replacement: expected one character");
    expect_load_failure("unigram", strip_decoder_content_empty, TF_ERR_FORMAT,
                        "decoder.content: expected one character");
    expect_load_failure("bert_cased", template_id_out_of_range, TF_ERR_FORMAT,
                        "post_processor: id 1000000 is not a token (the vocabulary and added "
                        "tokens have 6841)");
    expect_load_failure("bert_uncased", vocab_is_array, TF_ERR_FORMAT,
                        "model.vocab: expected an object of 1..16777216 tokens");
    expect_load_failure("bert_uncased", id_twice, TF_ERR_FORMAT,
                        "model.vocab: id 1 is given twice");
    expect_load_failure("bert_uncased", id_out_of_range, TF_ERR_FORMAT,
                        "model.vocab[\"the\"]: expected an integer in 0..6840");
    expect_load_failure("bert_uncased", wrong_flag_type, TF_ERR_FORMAT,
                        "added_tokens[2].special: expected true or false");
    expect_load_failure("qwen3", merge_of_unknown_token, TF_ERR_FORMAT,
                        "model.merges[0]: \"the first token\" is not in the vocabulary");
    expect_load_failure("qwen3", bad_regex, TF_ERR_FORMAT,
                        "pre_tokenizer.pretokenizers[0].pattern: the regex does not compile");

    /* the file cut short, and not JSON at all */
    size_t len;
    char *text = read_file(fixture("qwen3", "tokenizer.json").s, &len);
    make_tmp_dir();
    const path_buf p = join(tmp_dir, "tokenizer.json");
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    for (size_t cut = 0; cut < len; cut += len / 7 + 1) {
        write_file(p.s, text, cut);
        expect_failure(tf_tokenizer_load(p.s, NULL, &tok), TF_ERR_FORMAT,
                       "tokenizer.json: not valid "); /* JSON, or UTF-8 when cut in a character */
        ck_assert_ptr_null(tok);
    }
    write_file(p.s, "[1, 2]", 6);
    expect_failure(tf_tokenizer_load(p.s, NULL, &tok), TF_ERR_FORMAT,
                   "the file: expected a JSON object");
    remove_tmp_dir();
    free(text);
}
END_TEST

/* A Unigram without unk_id: a character no piece has fails the encoding,
 * naming the text and the byte its word starts at (tokenizers'
 * MissingUnkId); the others encode. */
START_TEST(test_unigram_without_unk)
{
    cJSON *j = read_json(fixture("unigram", "tokenizer.json").s);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(j, "model"), "unk_id", cJSON_CreateNull());
    make_tmp_dir();
    tf_tokenizer *tok = load(write_json(j, "tokenizer.json").s);
    tf_encoding *e = (tf_encoding *)&e;
    const char *text = "ok \xe2\x98\x83"; /* U+2603, a snowman: no piece */
    expect_failure(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e),
                   TF_ERR_INVALID_ARGUMENT,
                   "text 0: Unigram: the word at byte 2 has a character "
                   "that is no piece of the vocabulary, and model.unk_id is null");
    ck_assert_ptr_null(e);
    tf_tokenizer *with_unk = load(fixture("unigram", "tokenizer.json").s);
    tf_encoding *want;
    ck_assert_int_eq(tf_tokenizer_encode(tok, "ok", 2, NULL, 0, &e), TF_OK);
    ck_assert_int_eq(tf_tokenizer_encode(with_unk, "ok", 2, NULL, 0, &want), TF_OK);
    ck_assert_int_eq(tf_encoding_lengths(e)[0], tf_encoding_lengths(want)[0]);
    for (int32_t t = 0; t < tf_encoding_lengths(e)[0]; t++)
        ck_assert_int_eq(tf_encoding_ids(e)[t], tf_encoding_ids(want)[t]);
    tf_encoding_destroy(e);
    tf_encoding_destroy(want);
    tf_tokenizer_destroy(with_unk);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(j);
}
END_TEST

/* Decoding: a vocab.txt decodes as its tokenizer.json does (BertTokenizerFast's
 * WordPiece decoder); an id that is no token, a buffer too small, a decoder
 * this library lacks are refused by name, the buffer untouched. */
START_TEST(test_decode)
{
    tf_tokenizer *vocab = load(join(data_dir, "wordpiece/vocab.txt").s);
    tf_tokenizer *json = load(fixture("bert_uncased", "tokenizer.json").s);
    const char *text = "Hello, world! It's unbelievable: tokenizers don't.";
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(vocab, text, strlen(text), NULL, 0, &e), TF_OK);
    const int32_t *ids = tf_encoding_ids(e), n = tf_encoding_lengths(e)[0];
    char a[256], b[256];
    size_t la, lb;
    ck_assert_int_eq(tf_tokenizer_decode(vocab, ids, (size_t)n, 1, a, sizeof a, &la), TF_OK);
    ck_assert_int_eq(tf_tokenizer_decode(json, ids, (size_t)n, 1, b, sizeof b, &lb), TF_OK);
    ck_assert_str_eq(a, b);
    ck_assert_str_eq(a,
                     "hello, world! it ' s unbelievable : tokenizers don ' t."); /* as tokenizers */
    ck_assert_int_eq(tf_tokenizer_decode(vocab, ids, (size_t)n, 0, a, sizeof a, &la), TF_OK);
    ck_assert_str_eq(a, "[CLS] hello, world! it ' s unbelievable : tokenizers don ' t. [SEP]");

    memset(b, 'x', sizeof b);
    expect_failure(tf_tokenizer_decode(vocab, ids, (size_t)n, 0, b, 10, &lb),
                   TF_ERR_INVALID_ARGUMENT, "size: the text needs 67 bytes and a NUL, got 10");
    ck_assert_int_eq(lb, 67);
    ck_assert_int_eq(b[0], 'x');
    const int32_t bad[2] = {ids[1], 1 << 20};
    expect_failure(tf_tokenizer_decode(vocab, bad, 2, 0, b, sizeof b, &lb), TF_ERR_INVALID_ARGUMENT,
                   "ids[1]: 1048576 is not a token (the vocabulary and "
                   "added tokens have 6841)");
    expect_failure(tf_tokenizer_decode(vocab, ids, (size_t)n, 2, b, sizeof b, &lb),
                   TF_ERR_INVALID_ARGUMENT, "skip_special_tokens: expected 0 or 1, got 2");
    /* token strings (convert_tokens_to_string): "##" joins, punctuation's space goes */
    const char *tokens[] = {"cat", "##s", ",", "sat", "\xe2\x98\x83"};
    ck_assert_int_eq(tf_tokenizer_decode_tokens(json, tokens, 5, a, sizeof a, &la), TF_OK);
    ck_assert_str_eq(a, "cats, sat \xe2\x98\x83");
    ck_assert_int_eq(la, 13);
    const char *holes[] = {"cat", NULL};
    expect_failure(tf_tokenizer_decode_tokens(json, holes, 2, a, sizeof a, &la),
                   TF_ERR_INVALID_ARGUMENT, "tokens[1] is NULL");
    expect_failure(tf_tokenizer_decode_tokens(json, NULL, 2, a, sizeof a, &la),
                   TF_ERR_INVALID_ARGUMENT, "tokens is NULL but n is not 0");
    tf_encoding_destroy(e);
    tf_tokenizer_destroy(vocab);
    tf_tokenizer_destroy(json);

    cJSON *j = read_json(fixture("bert_uncased", "tokenizer.json").s);
    cJSON *ctc = cJSON_CreateObject();
    cJSON_AddStringToObject(ctc, "type", "CTC");
    cJSON_ReplaceItemInObject(j, "decoder", ctc);
    make_tmp_dir();
    tf_tokenizer *tok = load(write_json(j, "tokenizer.json").s); /* it encodes */
    const int32_t one = 5;
    expect_failure(tf_tokenizer_decode(tok, &one, 1, 0, b, sizeof b, &lb), TF_ERR_UNSUPPORTED,
                   "decoder: type \"CTC\" is not supported");
    expect_failure(tf_tokenizer_decode_tokens(tok, tokens, 1, b, sizeof b, &lb), TF_ERR_UNSUPPORTED,
                   "decoder: type \"CTC\" is not supported");
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(j);
}
END_TEST

/* A pattern that backtracks catastrophically fails the encoding, in
 * bounded time, instead of hanging. */
START_TEST(test_catastrophic_regex_fails)
{
    cJSON *j = read_json(fixture("qwen3", "tokenizer.json").s);
    cJSON *split = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(j, "pre_tokenizer"), "pretokenizers"), 0);
    cJSON *pattern = cJSON_CreateObject();
    cJSON_AddStringToObject(pattern, "Regex", "(a|aa)+$");
    cJSON_ReplaceItemInObject(split, "pattern", pattern);
    make_tmp_dir();
    tf_tokenizer *tok = load(write_json(j, "tokenizer.json").s);
    char text[200];
    memset(text, 'a', 198);
    text[198] = 'b', text[199] = '\0';
    tf_encoding *e = (tf_encoding *)&e;
    expect_failure(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e), TF_ERR_UNSUPPORTED,
                   "pre_tokenizer.pretokenizers[0].pattern: the regex failed at byte 0");
    ck_assert_msg(strncmp(tf_last_error(), "text 0: ", 8) == 0, "%s", tf_last_error());
    ck_assert_ptr_null(e);
    tf_tokenizer_destroy(tok);
    remove_tmp_dir();
    cJSON_Delete(j);
}
END_TEST

/* A word of 1 MiB (one piece for qwen3's regex) merges in O(n log n), and
 * its tokens are its bytes. */
START_TEST(test_long_word)
{
    tf_tokenizer *tok = load(fixture("qwen3", "tokenizer.json").s);
    const size_t n = 1 << 20;
    char *word = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        word[i] = "the"[i % 3];
    word[n] = '\0';
    tf_encoding *e;
    ck_assert_int_eq(tf_tokenizer_encode(tok, word, n, NULL, 0, &e), TF_OK);
    size_t at = 0;
    for (int32_t t = 0; t < tf_encoding_lengths(e)[0]; t++) {
        unsigned char bytes[1024];
        const size_t k = byte_level_bytes(tf_tokenizer_id_to_token(tok, tf_encoding_ids(e)[t]),
                                          bytes);
        ck_assert(at + k <= n && memcmp(word + at, bytes, k) == 0);
        at += k;
    }
    ck_assert_uint_eq(at, n);
    ck_assert_int_lt(tf_encoding_lengths(e)[0], (int32_t)(n * 3 / 4)); /* "th" merged */
    tf_encoding_destroy(e);
    free(word);
    tf_tokenizer_destroy(tok);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("tokenizer_json");
    TCase *tc = tcase_create("tokenizer_json");
    const int n = (int)(sizeof fixtures / sizeof fixtures[0]);
    tcase_add_loop_test(tc, test_cases_match_hugging_face, 0, n);
    tcase_add_loop_test(tc, test_truncation_matches_hugging_face, 0, n);
    tcase_add_loop_test(tc, test_truncation_options_match_hugging_face, 0, n);
    tcase_add_test(tc, test_padding_options_and_config);
    tcase_add_test(tc, test_wordpiece_fixtures_from_tokenizer_json);
    tcase_add_test(tc, test_file_truncation_and_padding);
    tcase_add_test(tc, test_directories_and_lookups);
    tcase_add_test(tc, test_hostile_files);
    tcase_add_test(tc, test_catastrophic_regex_fails);
    tcase_add_test(tc, test_unigram_without_unk);
    tcase_add_test(tc, test_decode);
    tcase_add_test(tc, test_long_word);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
