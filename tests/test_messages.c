/* test_messages.c — what a JSON file with raw control bytes in its strings
 * gets (refused, naming the string, the byte and where: RFC 8259 requires
 * U+0000..U+001F escaped, and a raw NUL would cut the string for cJSON),
 * and what tf_last_error holds for hostile bytes in what it quotes: always
 * valid UTF-8 (checked with utf8proc, not the library's own checker), a
 * non-UTF-8 byte as \xNN, a quote cut between two characters. */
#define _DEFAULT_SOURCE
#include <check.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/text_file.h"
#include "common/tmp_dir.h"
#include "tfenc.h"

static const char *data_dir;

/* s is valid UTF-8 through its NUL. */
static int valid_utf8(const char *s)
{
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
    utf8proc_ssize_t left = (utf8proc_ssize_t)strlen(s);
    while (left > 0) {
        utf8proc_int32_t cp;
        const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
        if (n <= 0)
            return 0;
        p += n, left -= n;
    }
    return 1;
}

static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* tmp_dir as bert_tiny with this config.json of len bytes. */
static tf_status load_with_config(const char *json, size_t len, tf_encoder **enc)
{
    ck_assert_int_eq(symlink(join(join(data_dir, "bert_tiny").s, "model.safetensors").s,
                             join(tmp_dir, "model.safetensors").s),
                     0);
    write_bytes(join(tmp_dir, "config.json").s, json, len);
    *enc = (tf_encoder *)enc; /* must come back NULL */
    return tf_encoder_load(tmp_dir, NULL, enc);
}

/* ---- raw control bytes inside JSON strings ---------------------------------- */

typedef struct raw_case {
    const char *json; /* with a NUL inside: its length is given */
    size_t len;
    const char *message;
} raw_case;

#define RAW(literal, message)                \
    {                                        \
        literal, sizeof literal - 1, message \
    }

static const raw_case raw_configs[] = {
    /* a raw NUL in a key: cJSON read "num_attention_heads" and took the 4 */
    RAW("{\"num_attention_heads\0junk\": 4}",
        "config.json: the string \"num_attention_heads\" at byte 1 holds the control byte 0x00 "
        "unescaped at byte 21: JSON (RFC 8259) requires it escaped (\\u0000)"),
    /* ... and in a value */
    RAW("{\"num_attention_heads\": 4, \"hidden_act\": \"gelu\0relu\"}",
        "the string \"gelu\" at byte 41 holds the control byte 0x00 unescaped at byte 46"),
    /* a raw tab or newline is no more JSON than a NUL */
    RAW("{\"num_attention_heads\": 4, \"model_type\": \"bert\t\"}",
        "the string \"bert\" at byte 41 holds the control byte 0x09 unescaped at byte 46: "
        "JSON (RFC 8259) requires it escaped (\\u0009)"),
    RAW("{\"num_attention_heads\": 4, \"a\": \"x\ny\"}",
        "the string \"x\" at byte 32 holds the control byte 0x0a unescaped at byte 34"),
    RAW("{\"num_attention_heads\": 4, \"a\": \"\x1f\"}", "the control byte 0x1f"),
    /* between tokens, where cJSON skips it as whitespace */
    RAW("{\"num_attention_heads\":\0 4}",
        "config.json: the control byte 0x00 at byte 23: JSON (RFC 8259) allows only space, "
        "tab, line feed and carriage return between its tokens"),
    RAW("{\"num_attention_heads\": 4,\x01\"a\": 1}", "the control byte 0x01 at byte 26"),
    RAW("\x0c{\"num_attention_heads\": 4}", "the control byte 0x0c at byte 0"),
};

START_TEST(test_config_raw_control_refused)
{
    const raw_case *c = &raw_configs[_i];
    make_tmp_dir();
    tf_encoder *enc;
    expect_failure(load_with_config(c->json, c->len, &enc), TF_ERR_FORMAT, c->message);
    ck_assert_ptr_null(enc);
    remove_tmp_dir();
}
END_TEST

/* The escaped forms of the same bytes stay what they are (\u0000 apart,
 * refused for the same reason as the raw NUL). */
START_TEST(test_config_escaped_control_loads)
{
    static const char json[] = "{\"num_attention_heads\": 4, \"a\": \"x\\ny\\t\\u001f\"}";
    make_tmp_dir();
    tf_encoder *enc;
    ck_assert_msg(load_with_config(json, sizeof json - 1, &enc) == TF_OK, "%s", tf_last_error());
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

/* A tokenizer.json whose key "model" is followed by a raw NUL: cJSON read
 * the key as "model". */
START_TEST(test_tokenizer_json_raw_nul_refused)
{
    size_t len;
    char *text = read_file(
        join(join(data_dir, "tokenizer_json/bert_uncased").s, "tokenizer.json").s, &len);
    char *model = strstr(text, "\"model\"");
    ck_assert_ptr_nonnull(model);
    const size_t at = (size_t)(model - text);
    char *edited = malloc(len + 5); /* "model" -> "model\0junk" */
    ck_assert_ptr_nonnull(edited);
    memcpy(edited, text, at + 6);
    memcpy(edited + at + 6, "\0junk", 5);
    memcpy(edited + at + 11, text + at + 6, len - at - 6);
    make_tmp_dir();
    const path_buf file = join(tmp_dir, "tokenizer.json");
    write_bytes(file.s, edited, len + 5);
    tf_tokenizer *tok = (tf_tokenizer *)&tok;
    expect_failure(tf_tokenizer_load(file.s, NULL, &tok), TF_ERR_FORMAT,
                   "holds the control byte 0x00 unescaped");
    ck_assert_ptr_null(tok);
    remove_tmp_dir();
    free(edited);
    free(text);
}
END_TEST

/* ---- tf_last_error is valid UTF-8 -------------------------------------------- */

/* A Latin-1 file name: its byte 0xE9 said as \xE9. */
START_TEST(test_latin1_path_escaped)
{
    tf_encoder *enc;
    expect_failure(tf_encoder_load("/nonexistent/caf\xe9", NULL, &enc), TF_ERR_IO,
                   "/nonexistent/caf\\xE9");
    ck_assert(valid_utf8(tf_last_error()));
}
END_TEST

/* A quote of at most 64 bytes cut inside "é" (2 bytes at 63..64) ends
 * before it, not on its first byte. */
START_TEST(test_quote_cut_between_characters)
{
    char json[160];
    const int n = snprintf(
        json, sizeof json, "{\"num_attention_heads\": 4, \"a\": \"%.63s\xc3\xa9\x01\"}",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    make_tmp_dir();
    tf_encoder *enc;
    expect_failure(load_with_config(json, (size_t)n, &enc), TF_ERR_FORMAT,
                   "the string \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" "
                   "at byte 32 holds the control byte 0x01");
    ck_assert(valid_utf8(tf_last_error()));
    remove_tmp_dir();
}
END_TEST

/* A path of 4000 bytes of "é" is named whole; one of 20000 is cut between
 * two characters, marked " [...]", and valid UTF-8 to its end, whatever
 * the byte the cut falls on. */
static char *path_of(size_t bytes, size_t pad)
{
    char *path = malloc(bytes + 1);
    ck_assert_ptr_nonnull(path);
    size_t at = (size_t)snprintf(path, bytes + 1, "/nonexistent/");
    for (size_t i = 0; i < pad; i++)
        path[at++] = 'x';
    for (; at + 2 <= bytes; at += 2)
        memcpy(path + at, "\xc3\xa9", 2);
    path[at] = '\0';
    return path;
}

START_TEST(test_long_paths_named_or_cut_between_characters)
{
    tf_encoder *enc;
    char *path = path_of(4000, 0);
    ck_assert_int_ne(tf_encoder_load(path, NULL, &enc), TF_OK);
    ck_assert_msg(strstr(tf_last_error(), path) != NULL, "%s", tf_last_error());
    ck_assert(valid_utf8(tf_last_error()));
    free(path);
    for (size_t pad = 0; pad < 4; pad++) {
        path = path_of(20000, pad);
        ck_assert_int_ne(tf_encoder_load(path, NULL, &enc), TF_OK);
        const char *m = tf_last_error();
        ck_assert_msg(valid_utf8(m), "pad %zu", pad);
        ck_assert_uint_gt(strlen(m), 10000);
        ck_assert_str_eq(m + strlen(m) - 6, " [...]");
        free(path);
    }
}
END_TEST

static Suite *messages_suite(void)
{
    Suite *s = suite_create("messages");
    TCase *tc = tcase_create("json");
    tcase_add_loop_test(tc, test_config_raw_control_refused, 0,
                        (int)(sizeof raw_configs / sizeof raw_configs[0]));
    tcase_add_test(tc, test_config_escaped_control_loads);
    tcase_add_test(tc, test_tokenizer_json_raw_nul_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("utf8");
    tcase_add_test(tc, test_latin1_path_escaped);
    tcase_add_test(tc, test_quote_cut_between_characters);
    tcase_add_test(tc, test_long_paths_named_or_cut_between_characters);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    return run_suite(messages_suite());
}
