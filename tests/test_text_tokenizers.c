/* test_text_tokenizers.c — the tokenizers of CLIP's and SigLIP's text towers
 * from the files their folders ship without a tokenizer.json: CLIP's
 * vocab.json and merges.txt, SigLIP's spiece.model (tests/data/
 * tokenizer_folders/clip and siglip, written by
 * tests/data/gen_text_tokenizers.py with the ids of transformers'
 * CLIPTokenizer and SiglipTokenizer over SentencePiece written out there);
 * SiglipProcessor's padding to 64; folders of another tokenizer_class, a bad
 * merges.txt and hostile spiece.model files refused by name. */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/expect.h"
#include "common/json_fixture.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

static path_buf folder(const char *name)
{
    return join(join(data_dir, "tokenizer_folders").s, name);
}

static cJSON *expected(void)
{
    return read_json(join(join(data_dir, "tokenizer_folders").s, "text_tokenizers.json").s);
}

static tf_tokenizer *load(const char *path)
{
    tf_tokenizer *tok = NULL;
    ck_assert_msg(tf_tokenizer_load(path, NULL, &tok) == TF_OK, "%s: %s", path, tf_last_error());
    return tok;
}

/* Whether tok encodes case c's text to its ids; says the first difference. */
static int ids_match(const tf_tokenizer *tok, const cJSON *c, const char *what)
{
    const char *text = json_at(c, "text")->valuestring;
    tf_encoding *enc = NULL;
    ck_assert_msg(tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &enc) == TF_OK, "%s: %s",
                  text, tf_last_error());
    const cJSON *ids = json_at(c, "ids");
    const int n = cJSON_GetArraySize(ids);
    int ok = tf_encoding_lengths(enc)[0] == n;
    for (int t = 0; ok && t < n; t++)
        ok = tf_encoding_ids(enc)[t] == cJSON_GetArrayItem(ids, t)->valueint;
    if (!ok) {
        fprintf(stderr, "%s: \"%s\": expected", what, text);
        for (int t = 0; t < n; t++)
            fprintf(stderr, " %d", cJSON_GetArrayItem(ids, t)->valueint);
        fprintf(stderr, ", got");
        for (int t = 0; t < tf_encoding_lengths(enc)[0]; t++)
            fprintf(stderr, " %d", tf_encoding_ids(enc)[t]);
        fprintf(stderr, "\n");
    }
    tf_encoding_destroy(enc);
    return ok;
}

/* Every case of `name` in text_tokenizers.json through the tokenizer at
 * path; its model_max_length. */
static void check_cases(const char *name, const char *path)
{
    cJSON *e = expected();
    const cJSON *model = json_at(e, name), *c;
    tf_tokenizer *tok = load(path);
    int failed = 0;
    cJSON_ArrayForEach(c, json_at(model, "cases")) failed += !ids_match(tok, c, name);
    ck_assert_msg(!failed, "%s: %d texts differ from the reference", name, failed);
    ck_assert_int_eq(tf_tokenizer_model_max_length(tok), json_at(model, "max_length")->valueint);
    tf_tokenizer_destroy(tok);
    cJSON_Delete(e);
}

START_TEST(test_clip_folder)
{
    check_cases("clip", folder("clip").s);
}
END_TEST

/* CLIPTokenizerFast's ids where the Python reference would differ (tokenizers.js
 * over CLIPConverter's tokenizer.json, tests/data/gen_clip_fast.mjs). */
START_TEST(test_clip_folder_as_fast)
{
    check_cases("clip_fast", folder("clip").s);
}
END_TEST

START_TEST(test_siglip_folder)
{
    check_cases("siglip", folder("siglip").s);
}
END_TEST

/* The files named directly: CLIPTokenizer's and SiglipTokenizer's defaults,
 * which the folders' tokenizer_config.json repeat. */
START_TEST(test_files_named_directly)
{
    check_cases("clip", join(folder("clip").s, "vocab.json").s);
    check_cases("siglip", join(folder("siglip").s, "spiece.model").s);
}
END_TEST

/* SiglipProcessor(padding="max_length"): every row 64 ids, the pad token
 * "</s>" after the text's, attention 0 there. */
START_TEST(test_siglip_pads_to_64)
{
    cJSON *e = expected();
    const cJSON *model = json_at(e, "siglip"), *c;
    const int32_t pad = json_at(model, "pad_id")->valueint;
    tf_tokenizer *tok = load(folder("siglip").s);
    const char *texts[32];
    size_t lens[32], n = 0;
    const cJSON *rows[32];
    cJSON_ArrayForEach(c, json_at(model, "cases"))
    {
        if (cJSON_GetArraySize(json_at(c, "ids")) > 64)
            continue; /* the processor would give it more than 64: no batch */
        rows[n] = json_at(c, "ids");
        texts[n] = json_at(c, "text")->valuestring;
        lens[n] = strlen(texts[n]);
        n++;
    }
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.pad_to_max_length = 1; /* max_length 0: the tokenizer's model_max_length, 64 */
    tf_encoding *enc = NULL;
    ck_assert_int_eq(tf_tokenizer_encode_batch_with(tok, n, texts, lens, NULL, NULL, &o, &enc),
                     TF_OK);
    ck_assert_int_eq(tf_encoding_seq_len(enc), 64);
    for (size_t b = 0; b < n; b++) {
        const int len = cJSON_GetArraySize(rows[b]);
        ck_assert_int_eq(tf_encoding_lengths(enc)[b], len);
        for (int t = 0; t < 64; t++) {
            const int32_t want = t < len ? cJSON_GetArrayItem(rows[b], t)->valueint : pad;
            ck_assert_int_eq(tf_encoding_ids(enc)[b * 64 + t], want);
            ck_assert_int_eq(tf_encoding_attention_mask(enc)[b * 64 + t], t < len);
        }
    }
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    cJSON_Delete(e);
}
END_TEST

/* Copies the file name of the fixture folder `from` into tmp_dir. */
static void copy_in(const char *from, const char *name)
{
    size_t len = 0;
    char *bytes = read_file(join(folder(from).s, name).s, &len);
    FILE *f = fopen(join(tmp_dir, name).s, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(bytes);
}

static void expect_folder_failure(tf_status status, const char *message)
{
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(tmp_dir, NULL, &tok), status, message);
    ck_assert_ptr_null(tok);
}

/* vocab.json with merges.txt, and spiece.model, load only as the
 * tokenizer_class they are CLIP's and SigLIP's files of. */
START_TEST(test_other_classes_refused)
{
    make_tmp_dir();
    copy_in("clip", "vocab.json");
    copy_in("clip", "merges.txt");
    write_text(join(tmp_dir, "tokenizer_config.json").s,
               "{\"tokenizer_class\": \"GPT2Tokenizer\"}");
    expect_folder_failure(TF_ERR_FORMAT,
                          "vocab.json with merges.txt is read only as "
                          "CLIPTokenizer's: tokenizer_config.json's "
                          "tokenizer_class is \"GPT2Tokenizer\"");
    unlink(join(tmp_dir, "tokenizer_config.json").s);
    expect_folder_failure(TF_ERR_FORMAT, "tokenizer_class is \"(none)\"");
    write_text(join(tmp_dir, "tokenizer_config.json").s,
               "{\"tokenizer_class\": \"CLIPTokenizerFast\"}");
    tf_tokenizer_destroy(load(tmp_dir));
    unlink(join(tmp_dir, "merges.txt").s); /* vocab.json alone: no tokenizer */
    expect_folder_failure(TF_ERR_IO, "with neither tokenizer.json nor vocab.txt");
    unlink(join(tmp_dir, "vocab.json").s);
    copy_in("siglip", "spiece.model");
    write_text(join(tmp_dir, "tokenizer_config.json").s, "{\"tokenizer_class\": \"T5Tokenizer\"}");
    expect_folder_failure(TF_ERR_FORMAT,
                          "spiece.model is read only as SiglipTokenizer's: "
                          "tokenizer_config.json's tokenizer_class is "
                          "\"T5Tokenizer\"");
    write_text(join(tmp_dir, "tokenizer_config.json").s, "{\"tokenizer_class\": 7}");
    expect_folder_failure(TF_ERR_FORMAT, "tokenizer_class: expected a string, got 7");
    remove_tmp_dir();
}
END_TEST

/* merges.txt with `copies` lines of the fixture's first merge after its
 * "#version" line, then "not-a-merge". */
static void write_merges(int copies)
{
    char *fixture = read_file(join(folder("clip").s, "merges.txt").s, NULL);
    char *first = strchr(fixture, '\n') + 1;
    *strchr(first, '\n') = '\0';
    FILE *f = fopen(join(tmp_dir, "merges.txt").s, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#version: 0.2\n", f);
    for (int k = 0; k < copies; k++)
        fprintf(f, "%s\n", first);
    fputs("not-a-merge\n", f);
    ck_assert_int_eq(fclose(f), 0);
    free(fixture);
}

/* merges.txt's lines after CLIPTokenizer's 48894 merges are not read; a
 * merge among them that is not two tokens is refused with its line. */
START_TEST(test_merges_lines)
{
    make_tmp_dir();
    copy_in("clip", "vocab.json");
    write_text(join(tmp_dir, "tokenizer_config.json").s,
               "{\"tokenizer_class\": \"CLIPTokenizer\"}");
    write_merges(1);
    expect_folder_failure(TF_ERR_FORMAT,
                          "merges.txt: line 3: expected two tokens apart "
                          "(\"a b\"), got 1 fields");
    write_text(join(tmp_dir, "merges.txt").s, "\n \n#version: 0.2\nnot-a-merge\n");
    expect_folder_failure(TF_ERR_FORMAT, "merges.txt: line 4: expected two tokens apart");
    write_merges(48893); /* "not-a-merge" is merge 48894 */
    expect_folder_failure(TF_ERR_FORMAT, "merges.txt: line 48895: expected two tokens apart");
    write_merges(48894);
    tf_tokenizer_destroy(load(tmp_dir));
    remove_tmp_dir();
}
END_TEST

/* ---- Hostile spiece.model files ----------------------------------------------------- */

/* Bytes of a protobuf message being written. */
typedef struct proto {
    unsigned char b[512];
    size_t n;
} proto;

static void put_varint(proto *p, uint64_t v)
{
    do {
        ck_assert_uint_lt(p->n, sizeof p->b);
        p->b[p->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void put_bytes(proto *p, uint32_t field, const void *data, size_t len)
{
    put_varint(p, field << 3 | 2);
    put_varint(p, len);
    ck_assert_uint_le(p->n + len, sizeof p->b);
    memcpy(p->b + p->n, data, len);
    p->n += len;
}

static void put_int(proto *p, uint32_t field, int64_t v)
{
    put_varint(p, field << 3);
    put_varint(p, (uint64_t)v);
}

static void put_piece(proto *p, const char *piece, float score, int type)
{
    proto m = {{0}, 0};
    put_bytes(&m, 1, piece, strlen(piece));
    uint32_t bits;
    memcpy(&bits, &score, sizeof bits);
    put_varint(&m, 2 << 3 | 5);
    for (int k = 0; k < 4; k++)
        m.b[m.n++] = (unsigned char)(bits >> (8 * k));
    put_int(&m, 3, type);
    put_bytes(p, 1, m.b, m.n);
}

/* A SigLIP-like model: <pad> </s> <unk> ▁ a ▁a, no charsmap; trainer_spec
 * with the ids given (unk_id 2). */
static proto small_model(int64_t unk_id)
{
    proto p = {{0}, 0}, trainer = {{0}, 0}, normalizer = {{0}, 0};
    put_piece(&p, "<pad>", 0.0f, 3);
    put_piece(&p, "</s>", 0.0f, 3);
    put_piece(&p, "<unk>", 0.0f, 2);
    put_piece(&p, "\xe2\x96\x81", -2.0f, 1);
    put_piece(&p, "a", -3.0f, 1);
    put_piece(&p,
              "\xe2\x96\x81"
              "a",
              -1.5f, 1);
    put_int(&trainer, 3, 1);
    put_int(&trainer, 40, unk_id);
    put_int(&trainer, 41, -1);
    put_int(&trainer, 42, 1);
    put_int(&trainer, 43, 0);
    put_bytes(&p, 2, trainer.b, trainer.n);
    put_bytes(&normalizer, 1, "identity", 8);
    put_bytes(&p, 3, normalizer.b, normalizer.n);
    return p;
}

static void write_model(const unsigned char *bytes, size_t n)
{
    FILE *f = fopen(join(tmp_dir, "spiece.model").s, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static void expect_model_failure(const proto *p, tf_status status, const char *message)
{
    write_model(p->b, p->n);
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(join(tmp_dir, "spiece.model").s, NULL, &tok), status, message);
    ck_assert_ptr_null(tok);
}

START_TEST(test_spiece_model_checked)
{
    make_tmp_dir();
    proto good = small_model(2);
    write_model(good.b, good.n);
    tf_tokenizer *tok = load(join(tmp_dir, "spiece.model").s);
    tf_encoding *enc = NULL;
    ck_assert_int_eq(tf_tokenizer_encode(tok, "A, a!", 5, NULL, 0, &enc), TF_OK);
    const int32_t want[] = {5, 5, 1}; /* ▁a ▁a </s> */
    ck_assert_int_eq(tf_encoding_lengths(enc)[0], 3);
    for (int t = 0; t < 3; t++)
        ck_assert_int_eq(tf_encoding_ids(enc)[t], want[t]);
    tf_encoding_destroy(enc);
    tf_tokenizer_destroy(tok);
    for (size_t cut = 0; cut < good.n; cut++) { /* a cut between fields is a model still */
        write_model(good.b, cut);
        tf_tokenizer *cut_tok = (tf_tokenizer *)&cut_tok;
        const tf_status s = tf_tokenizer_load(join(tmp_dir, "spiece.model").s, NULL, &cut_tok);
        ck_assert_msg(s == TF_OK || s == TF_ERR_FORMAT, "cut at %zu: %s", cut, tf_last_error());
        ck_assert(s == TF_OK || cut_tok == NULL);
        tf_tokenizer_destroy(s == TF_OK ? cut_tok : NULL);
    }
    write_model(good.b, 3); /* inside pieces[0] */
    tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(join(tmp_dir, "spiece.model").s, NULL, &tok), TF_ERR_FORMAT,
                   "spiece.model: pieces: length 14 runs past the end of its message (at byte 0)");
    proto p = small_model(9);
    expect_model_failure(&p, TF_ERR_FORMAT, "trainer_spec.unk_id: 9 is outside 0..5");
    p = good;
    p.b[1] = 0x7f; /* pieces[0]'s length past the end of its message */
    expect_model_failure(&p, TF_ERR_FORMAT,
                         "spiece.model: pieces: length 127 runs past the end of its message");
    p = good;
    p.b[0] = 1 << 3 | 3; /* a group */
    expect_model_failure(&p, TF_ERR_FORMAT,
                         "spiece.model: pieces: wire type 3 (a group) is not read");
    p = (proto){{0}, 0};
    put_piece(&p, "a", NAN, 1);
    expect_model_failure(&p, TF_ERR_FORMAT, "pieces[0].score: not a finite number");
    p = (proto){{0}, 0};
    put_piece(&p, "a", 0.0f, 9);
    expect_model_failure(&p, TF_ERR_FORMAT, "pieces[0].type: 9 is not one of 1..6");
    p = (proto){{0}, 0};
    put_piece(&p, "\xff", 0.0f, 1);
    expect_model_failure(&p, TF_ERR_FORMAT, "pieces[0].piece: expected a non-empty UTF-8 string");
    p = (proto){{0}, 0};
    put_int(&p, 4, 1);
    expect_model_failure(&p, TF_ERR_FORMAT, "pieces: none (not a SentencePiece model?)");
    p = good;
    proto trainer = {{0}, 0};
    put_int(&trainer, 3, 2); /* BPE */
    put_bytes(&p, 2, trainer.b, trainer.n);
    expect_model_failure(&p, TF_ERR_UNSUPPORTED, "trainer_spec.model_type: only a Unigram model");
    p = (proto){{0}, 0};
    put_piece(&p, "<unk>", 0.0f, 2);
    put_piece(&p, "a", 0.0f, 1);
    trainer = (proto){{0}, 0};
    put_int(&trainer, 41, -1);
    put_int(&trainer, 42, -1);
    put_bytes(&p, 2, trainer.b, trainer.n);
    expect_model_failure(&p, TF_ERR_FORMAT, "the eos_token \"</s>\" is not a piece of it");
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("text_tokenizers");
    TCase *tc = tcase_create("text_tokenizers");
    tcase_add_test(tc, test_clip_folder);
    tcase_add_test(tc, test_clip_folder_as_fast);
    tcase_add_test(tc, test_siglip_folder);
    tcase_add_test(tc, test_files_named_directly);
    tcase_add_test(tc, test_siglip_pads_to_64);
    tcase_add_test(tc, test_other_classes_refused);
    tcase_add_test(tc, test_merges_lines);
    tcase_add_test(tc, test_spiece_model_checked);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
