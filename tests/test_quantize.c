/* test_quantize.c — tf_quantize against sentence-transformers'
 * quantize_embeddings (tests/data/gen_quantize.py writes the reference
 * values: batch and calibration ranges, bucket edges, odd widths for the
 * bits), the row sizes and names, and every refusal, after which out is
 * untouched; tf_hamming_distance of packed rows against the floats' signs. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fixture.h"
#include "common/suite.h"
#include "tfenc.h"

enum { CANARY = 0xAB, SLACK = 16 }; /* bytes after out that must stay CANARY */

static const char *data_dir;

/* The floats of a JSON array of numbers (count values); free it. */
static float *floats_of(const cJSON *array, size_t count)
{
    ck_assert_int_eq(cJSON_GetArraySize(array), (int)count);
    float *x = malloc(count * sizeof *x);
    ck_assert_ptr_nonnull(x);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, array) x[i++] = (float)v->valuedouble;
    return x;
}

/* out [n, row_bytes] against the case's expected values, as the precision
 * stores them. */
static void expect_case(const cJSON *c, const unsigned char *out, int32_t precision, size_t count)
{
    const char *name = json_at(c, "name")->valuestring;
    const cJSON *expected = json_at(c, "expected");
    ck_assert_int_eq(cJSON_GetArraySize(expected), (int)count);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, expected)
    {
        double got;
        if (precision == TF_PRECISION_FLOAT32) {
            float f;
            memcpy(&f, out + i * sizeof f, sizeof f);
            got = f;
        } else if (precision == TF_PRECISION_INT8 || precision == TF_PRECISION_BINARY) {
            got = (int8_t)out[i];
        } else {
            got = out[i];
        }
        ck_assert_msg(got == v->valuedouble, "%s: value %zu is %.9g, expected %.9g", name, i, got,
                      v->valuedouble);
        i++;
    }
}

START_TEST(test_reference_cases)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/quantize/expected.json", data_dir);
    cJSON *root = read_json(path);
    const cJSON *c;
    int cases = 0;
    cJSON_ArrayForEach(c, json_at(root, "cases"))
    {
        const int32_t precision = tf_precision_from_name(json_at(c, "precision")->valuestring);
        ck_assert_int_ge(precision, 0);
        const size_t n = (size_t)json_at(c, "n")->valueint;
        const int32_t dim = json_at(c, "dim")->valueint;
        float *x = floats_of(json_at(c, "embeddings"), n * (size_t)dim); /* [n, dim] */
        const cJSON *given = json_at(c, "ranges");
        float *ranges = cJSON_IsNull(given) ? NULL : floats_of(given, 2 * (size_t)dim);
        const size_t bytes = n * tf_precision_row_bytes(precision, dim);
        unsigned char *out = malloc(bytes + SLACK);
        ck_assert_ptr_nonnull(out);
        memset(out, CANARY, bytes + SLACK);
        ck_assert_msg(tf_quantize(x, n, dim, precision, ranges, out, bytes) == TF_OK, "%s: %s",
                      json_at(c, "name")->valuestring, tf_last_error());
        const size_t values = precision == TF_PRECISION_FLOAT32 ? bytes / sizeof(float) : bytes;
        expect_case(c, out, precision, values);
        for (size_t i = bytes; i < bytes + SLACK; i++)
            ck_assert_int_eq(out[i], CANARY);
        free(out), free(ranges), free(x);
        cases++;
    }
    ck_assert_int_eq(cases, 14);
    cJSON_Delete(root);
}
END_TEST

START_TEST(test_row_bytes)
{
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_FLOAT32, 3), 12);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_INT8, 5), 5);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_UINT8, 384), 384);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_BINARY, 13), 2);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_UBINARY, 8), 1);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_UBINARY, 9), 2);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_BINARY, INT32_MAX), 268435456);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_INT8, 0), 0);
    ck_assert_uint_eq(tf_precision_row_bytes(TF_PRECISION_INT8, -4), 0);
    ck_assert_uint_eq(tf_precision_row_bytes(5, 8), 0);
    ck_assert_uint_eq(tf_precision_row_bytes(-1, 8), 0);
}
END_TEST

START_TEST(test_names)
{
    static const char *const names[] = {"float32", "int8", "uint8", "binary", "ubinary"};
    for (int32_t p = 0; p < 5; p++) {
        ck_assert_str_eq(tf_precision_name(p), names[p]);
        ck_assert_int_eq(tf_precision_from_name(names[p]), p);
    }
    ck_assert_int_eq(TF_PRECISION_UBINARY, 4);
    ck_assert_ptr_null(tf_precision_name(5));
    ck_assert_ptr_null(tf_precision_name(-1));
    ck_assert_int_eq(tf_precision_from_name("float16"), -1);
    ck_assert_int_eq(tf_precision_from_name("INT8"), -1);
    ck_assert_int_eq(tf_precision_from_name(NULL), -1);
}
END_TEST

/* Values outside the ranges take the end bucket; an overflow of x - start
 * to infinity too. */
START_TEST(test_outside_the_ranges_is_the_end_bucket)
{
    const float ranges[2 * 3] = {0.0f, 0.0f, -1.0f, 1.0f, 1.0f, 1.0f};      /* [2, 3] */
    const float x[2 * 3] = {1e30f, -1e30f, FLT_MAX, -0.5f, 1.5f, -FLT_MAX}; /* [2, 3] */
    int8_t i8[6];
    uint8_t u8[6];
    ck_assert_int_eq(tf_quantize(x, 2, 3, TF_PRECISION_INT8, ranges, i8, sizeof i8), TF_OK);
    ck_assert_int_eq(tf_quantize(x, 2, 3, TF_PRECISION_UINT8, ranges, u8, sizeof u8), TF_OK);
    const int8_t want_i8[6] = {127, -128, 127, -128, 127, -128};
    const uint8_t want_u8[6] = {255, 0, 255, 0, 255, 0};
    ck_assert_mem_eq(i8, want_i8, sizeof i8);
    ck_assert_mem_eq(u8, want_u8, sizeof u8);
}
END_TEST

/* ranges are read for int8 and uint8 only, as upstream reads them. */
START_TEST(test_bits_ignore_ranges)
{
    const float x[2 * 3] = {1.0f, -1.0f, 0.5f, 0.0f, 2.0f, -0.0f}; /* [2, 3] */
    const float bad[2 * 3] = {NAN, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f};  /* [2, 3] */
    uint8_t out[2], with_bad[2];
    ck_assert_int_eq(tf_quantize(x, 2, 3, TF_PRECISION_UBINARY, NULL, out, 2), TF_OK);
    ck_assert_int_eq(tf_quantize(x, 2, 3, TF_PRECISION_UBINARY, bad, with_bad, 2), TF_OK);
    ck_assert_uint_eq(out[0], 0xA0); /* 1 0 1, then padding */
    ck_assert_uint_eq(out[1], 0x40); /* 0 1 0 */
    ck_assert_mem_eq(out, with_bad, sizeof out);
}
END_TEST

START_TEST(test_no_rows)
{
    unsigned char out[4];
    memset(out, CANARY, sizeof out);
    ck_assert_int_eq(tf_quantize(NULL, 0, 4, TF_PRECISION_INT8, NULL, NULL, 0), TF_OK);
    const float x[4] = {1, 2, 3, 4};
    ck_assert_int_eq(tf_quantize(x, 0, 4, TF_PRECISION_UINT8, NULL, out, 0), TF_OK);
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_int_eq(out[i], CANARY);
}
END_TEST

/* ---- refusals: status, message, out untouched ----------------------------- */

enum { DIM = 3, ROWS = 2 };

typedef struct refusal {
    const char *what;
    int32_t precision, dim;
    int null_embeddings, null_out;
    size_t out_bytes;
    float x[ROWS * DIM]; /* [ROWS, DIM] */
    const float *ranges; /* [2, DIM] or NULL */
    const char *message;
} refusal;

static const float good_ranges[2 * DIM] = {-1.0f, -1.0f, -1.0f, 1.0f, 1.0f, 1.0f};
static const float nonfinite_ranges[2 * DIM] = {-1.0f, -1.0f, -1.0f, INFINITY, 1.0f, 1.0f};
static const float reversed_ranges[2 * DIM] = {-1.0f, 0.5f, -1.0f, 1.0f, -0.5f, 1.0f};
static const float constant_ranges[2 * DIM] = {-1.0f, -1.0f, 0.25f, 1.0f, 1.0f, 0.25f};
static const float underflow_ranges[2 * DIM] = {0.0f, -1.0f, -1.0f, 1e-45f, 1.0f, 1.0f};
static const float overflow_ranges[2 * DIM] = {-FLT_MAX, -1.0f, -1.0f, FLT_MAX, 1.0f, 1.0f};

#define GOOD_X                               \
    {                                        \
        0.1f, -0.2f, 0.3f, 0.4f, 0.5f, -0.6f \
    }

static const refusal refusals[] = {
    {"dim 0", TF_PRECISION_INT8, 0, 0, 0, 6, GOOD_X, NULL, "dim: expected >= 1, got 0"},
    {"dim -2", TF_PRECISION_BINARY, -2, 0, 0, 6, GOOD_X, NULL, "dim: expected >= 1, got -2"},
    {"precision 5", 5, DIM, 0, 0, 64, GOOD_X, NULL,
     "precision: expected a tf_precision (0..4), got 5"},
    {"precision -1", -1, DIM, 0, 0, 64, GOOD_X, NULL,
     "precision: expected a tf_precision (0..4), got -1"},
    {"NULL embeddings", TF_PRECISION_INT8, DIM, 1, 0, 6, GOOD_X, NULL,
     "embeddings is NULL; it must hold [2, 3] floats"},
    {"NULL out", TF_PRECISION_UINT8, DIM, 0, 1, 6, GOOD_X, NULL,
     "out is NULL; it must hold 2 rows of 3 bytes"},
    {"out too small int8", TF_PRECISION_INT8, DIM, 0, 0, 5, GOOD_X, NULL,
     "out_bytes: 2 rows of int8 need 3 bytes each, got 5 bytes"},
    {"out too small float32", TF_PRECISION_FLOAT32, DIM, 0, 0, 23, GOOD_X, NULL,
     "out_bytes: 2 rows of float32 need 12 bytes each, got 23 bytes"},
    {"out too small binary", TF_PRECISION_BINARY, DIM, 0, 0, 1, GOOD_X, NULL,
     "out_bytes: 2 rows of binary need 1 bytes each, got 1 bytes"},
    {"NaN value",
     TF_PRECISION_INT8,
     DIM,
     0,
     0,
     6,
     {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, NAN},
     NULL,
     "embeddings[1][2] is nan: tf_quantize takes finite values"},
    {"infinite value, binary",
     TF_PRECISION_BINARY,
     DIM,
     0,
     0,
     2,
     {0.1f, -INFINITY, 0.3f, 0.4f, 0.5f, 0.6f},
     NULL,
     "embeddings[0][1] is -inf: tf_quantize takes finite values"},
    {"infinite range", TF_PRECISION_UINT8, DIM, 0, 0, 6, GOOD_X, nonfinite_ranges,
     "ranges[1][0] is inf: tf_quantize takes finite values"},
    {"maximum below minimum", TF_PRECISION_INT8, DIM, 0, 0, 6, GOOD_X, reversed_ranges,
     "ranges: dimension 1's maximum -0.5 is below its minimum 0.5"},
    {"constant range", TF_PRECISION_INT8, DIM, 0, 0, 6, GOOD_X, constant_ranges,
     "ranges: dimension 2 has no range to quantize (minimum 0.25, maximum 0.25: step (max - "
     "min) / 255 = 0 in float32)"},
    {"constant dimension of the batch",
     TF_PRECISION_UINT8,
     DIM,
     0,
     0,
     6,
     {0.1f, 0.25f, 0.3f, 0.4f, 0.25f, -0.6f},
     NULL,
     "embeddings: dimension 1 has no range to quantize (minimum 0.25, maximum 0.25"},
    {"step underflows", TF_PRECISION_INT8, DIM, 0, 0, 6, GOOD_X, underflow_ranges,
     "ranges: dimension 0 has no range to quantize (minimum 0, maximum 1.40129846e-45: step "
     "(max - min) / 255 = 0 in float32)"},
    {"step overflows", TF_PRECISION_INT8, DIM, 0, 0, 6, GOOD_X, overflow_ranges,
     "ranges: dimension 0 has no range to quantize (minimum -3.40282347e+38, maximum "
     "3.40282347e+38: step (max - min) / 255 = inf in float32)"},
};

START_TEST(test_refusal)
{
    const refusal *r = &refusals[_i];
    unsigned char out[64];
    memset(out, CANARY, sizeof out);
    const tf_status got = tf_quantize(r->null_embeddings ? NULL : r->x, ROWS, r->dim, r->precision,
                                      r->ranges, r->null_out ? NULL : out, r->out_bytes);
    ck_assert_msg(got == TF_ERR_INVALID_ARGUMENT, "%s: got %s", r->what, tf_status_name(got));
    ck_assert_msg(strstr(tf_last_error(), r->message) != NULL, "%s: message \"%s\" lacks \"%s\"",
                  r->what, tf_last_error(), r->message);
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_msg(out[i] == CANARY, "%s: out[%zu] written", r->what, i);
}
END_TEST

/* The good arguments of the refusals pass, so each refusal is its own. */
START_TEST(test_refusals_base_case_passes)
{
    const float x[ROWS * DIM] = GOOD_X;
    unsigned char out[64];
    ck_assert_int_eq(tf_quantize(x, ROWS, DIM, TF_PRECISION_INT8, good_ranges, out, 6), TF_OK);
    ck_assert_int_eq(tf_quantize(x, ROWS, DIM, TF_PRECISION_INT8, NULL, out, 6), TF_OK);
    ck_assert_int_eq(tf_quantize(x, ROWS, DIM, TF_PRECISION_BINARY, NULL, out, 2), TF_OK);
    ck_assert_int_eq(tf_quantize(x, ROWS, DIM, TF_PRECISION_FLOAT32, NULL, out, 24), TF_OK);
}
END_TEST

/* ---- tf_hamming_distance ---- */

enum { HAM_A = 3, HAM_B = 4, HAM_DIM = 13 }; /* odd width: a padded last byte */

/* Deterministic values of both signs (and zeros, which are "not > 0"). */
static float wave(size_t i)
{
    static const float pattern[7] = {0.5f, -1.0f, 0.0f, 2.0f, -0.25f, 1.0f, -3.0f};
    return pattern[(i * 5 + i / 7) % 7];
}

/* The Hamming distances of a [HAM_A, HAM_DIM] and b [HAM_B, HAM_DIM]
 * quantized to `precision`, against the signs' disagreements counted from
 * the floats themselves, value by value. */
START_TEST(test_hamming_against_the_signs)
{
    const int32_t precision = _i ? TF_PRECISION_UBINARY : TF_PRECISION_BINARY;
    float a[HAM_A * HAM_DIM], b[HAM_B * HAM_DIM]; /* [A, DIM], [B, DIM] */
    for (size_t i = 0; i < HAM_A * HAM_DIM; i++)
        a[i] = wave(i);
    for (size_t i = 0; i < HAM_B * HAM_DIM; i++)
        b[i] = wave(3 * i + 1);
    unsigned char qa[HAM_A * 2], qb[HAM_B * 2]; /* [A, 2], [B, 2] packed */
    ck_assert_int_eq(tf_quantize(a, HAM_A, HAM_DIM, precision, NULL, qa, sizeof qa), TF_OK);
    ck_assert_int_eq(tf_quantize(b, HAM_B, HAM_DIM, precision, NULL, qb, sizeof qb), TF_OK);
    int32_t got[HAM_A * HAM_B]; /* [A, B] */
    ck_assert_int_eq(tf_hamming_distance(qa, HAM_A, qb, HAM_B, HAM_DIM, got), TF_OK);
    for (size_t i = 0; i < HAM_A; i++)
        for (size_t j = 0; j < HAM_B; j++) {
            int32_t want = 0;
            for (size_t d = 0; d < HAM_DIM; d++)
                want += (a[i * HAM_DIM + d] > 0.0f) != (b[j * HAM_DIM + d] > 0.0f);
            ck_assert_msg(got[i * HAM_B + j] == want, "%s: rows %zu, %zu: %d, want %d",
                          tf_precision_name(precision), i, j, (int)got[i * HAM_B + j], (int)want);
        }
}
END_TEST

/* Hand-counted rows; the padding bits past dim are not read. */
START_TEST(test_hamming_by_hand)
{
    const uint8_t a[2] = {0xA0, 0x00}, b[2] = {0x40, 0xFF}; /* 1 0 1 / 0 1 0 */
    const uint8_t padded_b[2] = {0x5F, 0xFF};               /* 0 1 0, then set padding */
    int32_t d = -1;
    ck_assert_int_eq(tf_hamming_distance(a, 1, b, 1, 3, &d), TF_OK);
    ck_assert_int_eq(d, 3);
    ck_assert_int_eq(tf_hamming_distance(a, 1, padded_b, 1, 3, &d), TF_OK);
    ck_assert_int_eq(d, 3);
    ck_assert_int_eq(tf_hamming_distance(a, 1, a, 1, 3, &d), TF_OK);
    ck_assert_int_eq(d, 0);
    ck_assert_int_eq(tf_hamming_distance(a, 1, b, 1, 16, &d), TF_OK); /* 3 + 8 */
    ck_assert_int_eq(d, 11);
    ck_assert_int_eq(tf_hamming_distance(a, 1, b, 1, 9, &d), TF_OK); /* 3 + the high bit */
    ck_assert_int_eq(d, 4);
}
END_TEST

START_TEST(test_hamming_refusals)
{
    const uint8_t row[1] = {0x80};
    int32_t d = -7;
    ck_assert_int_eq(tf_hamming_distance(row, 1, row, 1, 0, &d), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "dim: expected >= 1 values a row, got 0");
    ck_assert_int_eq(tf_hamming_distance(NULL, 1, row, 1, 8, &d), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "a is NULL (n_a 1, n_b 1)");
    ck_assert_int_eq(tf_hamming_distance(row, 1, NULL, 2, 8, &d), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "b is NULL (n_a 1, n_b 2)");
    ck_assert_int_eq(tf_hamming_distance(row, 1, row, 1, 8, NULL), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "out is NULL (n_a 1, n_b 1)");
    ck_assert_int_eq(d, -7);
    ck_assert_int_eq(tf_hamming_distance(NULL, 0, NULL, 0, 8, NULL), TF_OK); /* nothing */
}
END_TEST

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    Suite *s = suite_create("quantize");
    TCase *tc = tcase_create("quantize");
    tcase_add_test(tc, test_reference_cases);
    tcase_add_test(tc, test_row_bytes);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_outside_the_ranges_is_the_end_bucket);
    tcase_add_test(tc, test_bits_ignore_ranges);
    tcase_add_test(tc, test_no_rows);
    tcase_add_loop_test(tc, test_refusal, 0, sizeof refusals / sizeof refusals[0]);
    tcase_add_test(tc, test_refusals_base_case_passes);
    tcase_add_loop_test(tc, test_hamming_against_the_signs, 0, 2);
    tcase_add_test(tc, test_hamming_by_hand);
    tcase_add_test(tc, test_hamming_refusals);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
