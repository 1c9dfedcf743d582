/* test_tokenizer_bounds.c — the work and the growth a text may cause in a
 * tokenizer.json's regexes and normalizers are linear in its length
 * (the bounds are tfenc.h's, in its tokenizer section):
 *   - a Replace normalizer whose pattern tries every start position over the
 *     rest of the text (tokenizer_json/bpe_chars: \s*\d+ on spaces),
 *   - a Split pre-tokenizer whose pattern backtracks over the rest of the
 *     text at every start position (tokenizer_bounds/split_quadratic.json:
 *     \s*\n on spaces),
 *   - six chained Replace normalizers, each making four a of one
 *     (tokenizer_bounds/replace_chain.json: 4, 16, 64, ... characters per a),
 *     and six such Replace decoders (decoder_chain.json; two of them,
 *     decoder_pair.json, make 16 bytes of an a, within the bound),
 * are refused with the status and message tfenc.h gives, and the tokenizer
 * stays usable; texts of the same kind within the bounds, and a long
 * ordinary text through every tokenizer.json fixture, encode. */
#define _GNU_SOURCE /* mkdtemp, in tmp_dir.h */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

enum {
    WORK_PER_BYTE = 256, /* a regex's work over a text of n bytes: 256 (n + 1) */
    CHARS_PER_BYTE = 16, /* a normalizer's output: 16 characters per byte of the text */
    IDS_MAX = 1 << 20    /* the most ids a test here reads back */
};

static const char *data_dir;

static tf_tokenizer *load(const char *path)
{
    tf_tokenizer *tok = NULL;
    ck_assert_msg(tf_tokenizer_load(path, NULL, &tok) == TF_OK, "%s: %s", path, tf_last_error());
    return tok;
}

static tf_tokenizer *load_bounds(const char *name)
{
    return load(join(join(data_dir, "tokenizer_bounds").s, name).s);
}

static tf_tokenizer *load_fixture(const char *name)
{
    return load(join(join(join(data_dir, "tokenizer_json").s, name).s, "tokenizer.json").s);
}

/* `count` copies of `unit` and a NUL (free it). */
static char *repeat(const char *unit, size_t count)
{
    const size_t n = strlen(unit);
    char *text = malloc(n * count + 1);
    ck_assert_ptr_nonnull(text);
    for (size_t k = 0; k < count; k++)
        memcpy(text + k * n, unit, n);
    text[n * count] = '\0';
    return text;
}

/* The ids of text (without truncation) into ids ([IDS_MAX]); returns their count. */
static int32_t encode_ids(const tf_tokenizer *tok, const char *text, int32_t *ids)
{
    tf_encode_options opts;
    tf_encode_options_init(&opts);
    opts.truncation = TF_TRUNCATION_NONE;
    tf_encoding *e = NULL;
    const tf_status s = tf_tokenizer_encode_batch_with(tok, 1, &text, NULL, NULL, NULL, &opts, &e);
    ck_assert_msg(s == TF_OK, "%s", tf_last_error());
    const int32_t n = tf_encoding_lengths(e)[0];
    ck_assert_int_le(n, IDS_MAX);
    memcpy(ids, tf_encoding_ids(e), (size_t)n * sizeof *ids);
    tf_encoding_destroy(e);
    return n;
}

/* Encoding text fails with TF_ERR_UNSUPPORTED and a message holding each
 * of the NULL-ended `parts`; *out is left NULL. */
static void expect_refused(const tf_tokenizer *tok, const char *text, const char *const *parts)
{
    tf_encoding *e = NULL;
    expect_failure(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e), TF_ERR_UNSUPPORTED,
                   parts[0]);
    for (size_t k = 1; parts[k]; k++)
        ck_assert_msg(strstr(tf_last_error(), parts[k]) != NULL, "message \"%s\" lacks \"%s\"",
                      tf_last_error(), parts[k]);
    ck_assert_ptr_null(e);
}

/* tok gives `text` the ids `want` ([n]). */
static void expect_ids(const tf_tokenizer *tok, const char *text, const int32_t *want, int32_t n)
{
    int32_t *ids = malloc(IDS_MAX * sizeof *ids);
    ck_assert_int_eq(encode_ids(tok, text, ids), n);
    ck_assert_int_eq(memcmp(ids, want, (size_t)n * sizeof *ids), 0);
    free(ids);
}

/* tok encodes `copies` copies of unit (which ends where the tokenizer
 * starts a new piece), and each copy after the first two gives the ids
 * the third gives: the count is that of 2 copies and copies - 2 times the
 * third's, and the text ends in the ids 3 copies end in. */
static void expect_copies_encode(const tf_tokenizer *tok, const char *unit, int32_t copies)
{
    int32_t *ids = malloc(IDS_MAX * sizeof *ids), *three = malloc(IDS_MAX * sizeof *three);
    char *text = repeat(unit, 2);
    const int32_t n2 = encode_ids(tok, text, ids);
    free(text);
    text = repeat(unit, 3);
    const int32_t n3 = encode_ids(tok, text, three);
    free(text);
    const int32_t per_copy = n3 - n2;
    ck_assert_int_gt(per_copy, 0);
    text = repeat(unit, (size_t)copies);
    const int32_t n = encode_ids(tok, text, ids);
    free(text);
    ck_assert_int_eq(n, n2 + (copies - 2) * per_copy);
    const int32_t tail = 2 * per_copy; /* of the last two copies and the specials after */
    ck_assert_int_eq(memcmp(ids + n - tail, three + n3 - tail, (size_t)tail * sizeof *ids), 0);
    free(three);
    free(ids);
}

/* ---- A quadratic Replace normalizer ------------------------------------------- */

/* bpe_chars' normalizers[2] replaces \s*\d+, which on a run of spaces
 * scans the rest of the run from every start position: 100,000 spaces
 * are refused, a long text with digits and runs of spaces is not. */
START_TEST(test_quadratic_replace_is_refused)
{
    tf_tokenizer *tok = load_fixture("bpe_chars");
    const char *ordinary = "In 2024 the    3 cats ran 12 km.  Then 7 more.\n";
    int32_t want[64];
    const int32_t n = encode_ids(tok, ordinary, want);
    ck_assert_int_gt(n, 10);

    char *spaces = repeat(" ", 100000);
    char bound[64];
    snprintf(bound, sizeof bound, "more than %d bytes", WORK_PER_BYTE * (100000 + 1));
    expect_refused(tok, spaces,
                   (const char *const[]){"text 0: ", "normalizer.normalizers[2].pattern",
                                         "\"\\s*\\d+\"", "100000 bytes", bound, NULL});
    expect_ids(tok, ordinary, want, n); /* the tokenizer is as it was */

    /* the same kind within the bound: 100 spaces (stripped, as one is), and
       20,000 copies of the ordinary text (about 1 MB) */
    spaces[100] = '\0';
    int32_t one[8];
    const int32_t n_one = encode_ids(tok, " ", one);
    expect_ids(tok, spaces, one, n_one);
    expect_copies_encode(tok, ordinary, 20000);
    free(spaces);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* ---- A quadratic Split pre-tokenizer ----------------------------------------- */

/* \s*\n backtracks over the rest of a run of spaces at every start: 20,000
 * spaces are refused; 100 and 2,000 spaces (quadratic, but within the
 * spare 4 MiB), and runs of spaces ended by newlines, are not. */
START_TEST(test_quadratic_split_is_refused)
{
    tf_tokenizer *tok = load_bounds("split_quadratic.json");
    const int32_t want[4] = {1, 2, 3, 4}; /* "ab \n": a b (a piece), " \n" (the match) */
    expect_ids(tok, "ab \n", want, 4);

    char *spaces = repeat(" ", 20000);
    char bound[64];
    snprintf(bound, sizeof bound, "more than %d bytes", WORK_PER_BYTE * (20000 + 1));
    expect_refused(tok, spaces,
                   (const char *const[]){"text 0: ", "pre_tokenizer.pattern", "\"\\s*\\n\"",
                                         "20000 bytes", bound, NULL});
    expect_ids(tok, "ab \n", want, 4);

    int32_t *ids = malloc(IDS_MAX * sizeof *ids);
    spaces[2000] = '\0';
    ck_assert_int_eq(encode_ids(tok, spaces, ids), 2000);
    for (int32_t k = 0; k < 2000; k++)
        ck_assert_int_eq(ids[k], 3);
    spaces[100] = '\0';
    ck_assert_int_eq(encode_ids(tok, spaces, ids), 100);
    for (int32_t k = 0; k < 100; k++)
        ck_assert_int_eq(ids[k], 3);
    char *text = repeat("ab \n", 50000); /* 200,000 bytes */
    ck_assert_int_eq(encode_ids(tok, text, ids), 4 * 50000);
    for (int32_t k = 0; k < 4 * 50000; k++)
        ck_assert_int_eq(ids[k], want[k % 4]);
    free(text);
    free(ids);
    free(spaces);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* ---- Chained expanding Replace normalizers -------------------------------------- */

/* Each of the six Replaces makes four a of one. 200 a: the second makes
 * 16 per byte, the bound; the third would make 64 per byte and is refused.
 * One a among b: its 4^6 = 4096 a fit 16 per byte of a text of 399 bytes
 * (6384) but not of 200 (3200), where the sixth is refused. */
START_TEST(test_expanding_chain_is_refused)
{
    tf_tokenizer *tok = load_bounds("replace_chain.json");
    int32_t *ids = malloc(IDS_MAX * sizeof *ids);
    char *one_a = repeat("b", 399); /* "a" and 398 b: 4096 a (2048 "aa", id 5), 398 b (2) */
    one_a[0] = 'a';
    const int32_t n = encode_ids(tok, one_a, ids);
    ck_assert_int_eq(n, 2048 + 398);
    for (int32_t k = 0; k < n; k++)
        ck_assert_int_eq(ids[k], k < 2048 ? 5 : 2);

    char *as = repeat("a", 200);
    char bound[64];
    snprintf(bound, sizeof bound, "more than %d characters", CHARS_PER_BYTE * 200);
    expect_refused(tok, as,
                   (const char *const[]){"text 0: ", "normalizer.normalizers[2].pattern", "\"a\"",
                                         "200 bytes", bound, NULL});
    expect_ids(tok, one_a, ids, n); /* the tokenizer is as it was */

    char *short_one_a = repeat("b", 200);
    short_one_a[0] = 'a';
    expect_refused(tok, short_one_a,
                   (const char *const[]){"text 0: ", "normalizer.normalizers[5].pattern",
                                         "200 bytes", bound, NULL});
    free(short_one_a);
    free(as);
    free(one_a);
    free(ids);
    tf_tokenizer_destroy(tok);
}
END_TEST

/* ---- Ordinary long texts --------------------------------------------------------- */

/* Decoding grows by at most 16 bytes per byte of the tokens' strings (and
 * room for 16 bytes): six Replace decoders make 4096 a of one a and are
 * refused; two make 16, which decode. */
START_TEST(test_expanding_decoder_is_refused)
{
    tf_tokenizer *tok = load_bounds("decoder_chain.json");
    const int32_t a[1] = {1}, b[3] = {2, 2, 2};
    char text[64];
    size_t len;
    expect_failure(tf_tokenizer_decode(tok, a, 1, 0, text, sizeof text, &len), TF_ERR_UNSUPPORTED,
                   "decoder.Replace: the decoding would make more than 272 "
                   "bytes, 16 per byte of the 1 bytes of the tokens' strings; pattern \"a\"");
    ck_assert_int_eq(tf_tokenizer_decode(tok, b, 3, 0, text, sizeof text, &len), TF_OK);
    ck_assert_str_eq(text, "bbb");
    tf_tokenizer_destroy(tok);
    tok = load_bounds("decoder_pair.json");
    ck_assert_int_eq(tf_tokenizer_decode(tok, a, 1, 0, text, sizeof text, &len), TF_OK);
    ck_assert_str_eq(text, "aaaaaaaaaaaaaaaa");
    tf_tokenizer_destroy(tok);
}
END_TEST

static const char *const fixtures[] = {"bert_cased", "bert_uncased", "bpe_bytes",
                                       "bpe_chars",  "qwen3",        "roberta",
                                       "spm_bpe",    "unigram",      "unigram_bytes"};

/* A paragraph of the kinds of text the fixtures see, which every fixture
 * tokenizes on its own after a newline (each copy gives the same ids). */
static const char paragraph[] =
    "Attention is all you need: in 2017, 8 heads of 64 dimensions each (512 in all)\n"
    "    beat the      state of the art by 2.0 BLEU. Don't stop; it's \"fine\" -- or not?\n"
    "\t\tCafé naïve résumé, Straße, 東京は日本の首都です。 Ελληνικά, русский, عربى.\n"
    "x = f(y) + 3*z^2; // a comment with    many spaces and a URL https://example.org/a?b=c\n"
    "\n\n";

/* Every fixture encodes 2048 copies of the paragraph (about 750 KB). */
START_TEST(test_ordinary_long_texts_encode)
{
    tf_tokenizer *tok = load_fixture(fixtures[_i]);
    expect_copies_encode(tok, paragraph, 2048);
    tf_tokenizer_destroy(tok);
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("tokenizer_bounds");
    TCase *tc = tcase_create("tokenizer_bounds");
    tcase_add_test(tc, test_quadratic_replace_is_refused);
    tcase_add_test(tc, test_quadratic_split_is_refused);
    tcase_add_test(tc, test_expanding_chain_is_refused);
    tcase_add_test(tc, test_expanding_decoder_is_refused);
    tcase_add_loop_test(tc, test_ordinary_long_texts_encode, 0,
                        (int)(sizeof fixtures / sizeof fixtures[0]));
    suite_add_tcase(s, tc);
    return run_suite(s);
}
