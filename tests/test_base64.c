/* test_base64.c — lib/base/base64.c against RFC 4648's test vectors (section
 * 10), decoding with and without the padding, and every refusal: a length
 * no bytes encode, a byte outside the alphabet (and where), '=' inside. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "common/suite.h"

static const struct {
    const char *bytes, *text;
} rfc4648[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};
enum { N_VECTORS = sizeof rfc4648 / sizeof rfc4648[0] };

static void expect_decoded(const char *text, size_t len, int padded, const char *want)
{
    unsigned char *out = NULL;
    size_t size = 99, bad_at = 0;
    ck_assert_int_eq(tf__base64_decode(text, len, padded, &out, &size, &bad_at), TF__BASE64_OK);
    ck_assert_uint_eq(size, strlen(want));
    ck_assert(memcmp(out, want, size) == 0);
    free(out);
}

START_TEST(test_rfc4648_vectors)
{
    const char *bytes = rfc4648[_i].bytes, *text = rfc4648[_i].text;
    char encoded[16] = {0};
    ck_assert_uint_eq(tf__base64_length(strlen(bytes)), strlen(text));
    tf__base64_encode((const unsigned char *)bytes, strlen(bytes), encoded);
    ck_assert_str_eq(encoded, text);
    expect_decoded(text, strlen(text), 1, bytes);
    expect_decoded(text, strlen(text), 0, bytes);
    expect_decoded(text, strcspn(text, "="), 0, bytes); /* the padding left out */
}
END_TEST

/* Every byte value through encode and decode. */
START_TEST(test_round_trip)
{
    unsigned char bytes[256];
    for (int i = 0; i < 256; i++)
        bytes[i] = (unsigned char)(255 - i);
    char text[4 * 86];
    for (size_t n = 250; n <= 256; n++) {
        tf__base64_encode(bytes, n, text);
        unsigned char *out = NULL;
        size_t size = 0, bad_at = 0;
        ck_assert_int_eq(tf__base64_decode(text, tf__base64_length(n), 1, &out, &size, &bad_at),
                         TF__BASE64_OK);
        ck_assert_uint_eq(size, n);
        ck_assert(memcmp(out, bytes, n) == 0);
        free(out);
    }
}
END_TEST

static void expect_refused(const char *text, int padded, int want, size_t want_at)
{
    unsigned char *out = (unsigned char *)text;
    size_t size = 0, bad_at = 12345;
    ck_assert_int_eq(tf__base64_decode(text, strlen(text), padded, &out, &size, &bad_at), want);
    ck_assert_ptr_null(out);
    if (want == TF__BASE64_CHARACTER)
        ck_assert_uint_eq(bad_at, want_at);
}

START_TEST(test_refusals)
{
    expect_refused("Zm9vY", 0, TF__BASE64_LENGTH, 0); /* 5 characters: 30 bits */
    expect_refused("Zm8", 1, TF__BASE64_LENGTH, 0);   /* unpadded where padding is required */
    expect_refused("Zm8==", 0, TF__BASE64_LENGTH, 0); /* padded to 5 */
    expect_refused("Zm9v-mFy", 0, TF__BASE64_CHARACTER, 4);
    expect_refused("Zm=vYmFy", 0, TF__BASE64_CHARACTER, 2); /* '=' inside */
    expect_refused("Zm9vYmF\n", 1, TF__BASE64_CHARACTER, 7);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("base64");
    TCase *tc = tcase_create("base64");
    tcase_add_loop_test(tc, test_rfc4648_vectors, 0, N_VECTORS);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
