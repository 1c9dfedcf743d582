/* test_float_text.c — lib/base/float_text.c against glibc's printf and
 * strtof: the text of every float in a sweep of all 2^32 bit patterns,
 * of a dense run where embedding values lie, and of the edges (zeros,
 * subnormals, FLT_MAX, powers of two and ten, integers past 2^24), byte
 * for byte that of the first "%.1g".."%.9g" that strtof reads back. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/suite.h"
#include "float_text.h"

/* The reference: printf's correctly rounded digits, shortest first. */
static void reference_text(char out[TF_FLOAT_TEXT_MAX], float v)
{
    for (int p = 1; p <= 9; p++) {
        snprintf(out, TF_FLOAT_TEXT_MAX, "%.*g", p, (double)v);
        if (strtof(out, NULL) == v)
            return;
    }
}

static float from_bits(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void expect_as_printf(float v)
{
    char got[TF_FLOAT_TEXT_MAX], want[TF_FLOAT_TEXT_MAX];
    const size_t n = tf__float_text(got, v);
    reference_text(want, v);
    ck_assert_msg(strcmp(got, want) == 0, "%a: got \"%s\", printf \"%s\"", (double)v, got, want);
    ck_assert_uint_eq(n, strlen(got));
    if (!isnan(v))
        ck_assert_msg(strtof(got, NULL) == v, "%a: \"%s\" reads back differently", (double)v, got);
}

static void expect_text(float v, const char *want)
{
    char got[TF_FLOAT_TEXT_MAX];
    tf__float_text(got, v);
    ck_assert_str_eq(got, want);
}

START_TEST(test_known_texts)
{
    expect_text(0.1f, "0.1");
    expect_text(0.5f, "0.5");
    expect_text(-0.125f, "-0.125");
    expect_text(1.0f / 3.0f, "0.33333334");
    expect_text(nextafterf(1.0f, 0.0f), "0.99999994");
    expect_text(100.0f, "1e+02");
    expect_text(123456.0f, "123456");
    expect_text(16777216.0f, "16777216");
    expect_text(1e-5f, "1e-05");
    expect_text(0.0001f, "0.0001");
    expect_text(-3.5e-7f, "-3.5e-07");
    expect_text(FLT_MAX, "3.4028235e+38");
    expect_text(FLT_TRUE_MIN, "1e-45");
    expect_text(0.0f, "0");
    expect_text(-0.0f, "-0");
    expect_text(INFINITY, "inf");
    expect_text(-INFINITY, "-inf");
    expect_text(NAN, "nan");
}
END_TEST

START_TEST(test_edges)
{
    for (int e = -149; e <= 127; e++) { /* powers of two and their neighbours */
        const float v = ldexpf(1.0f, e);
        expect_as_printf(v);
        expect_as_printf(nextafterf(v, 0.0f));
        expect_as_printf(-nextafterf(v, INFINITY));
    }
    for (int k = -45; k <= 38; k++) { /* powers of ten and their neighbours */
        const float v = (float)pow(10.0, k);
        expect_as_printf(v);
        expect_as_printf(nextafterf(v, 0.0f));
        expect_as_printf(nextafterf(v, INFINITY));
    }
    for (uint32_t i = 0; i < 4096; i++) { /* integers past 2^24, subnormals */
        expect_as_printf(16777216.0f + 2.0f * (float)i);
        expect_as_printf(33554432.0f * (float)(i + 1));
        expect_as_printf(from_bits(i));
        expect_as_printf(from_bits(0x00800000u - i));
    }
    expect_as_printf(FLT_MIN);
    expect_as_printf(nextafterf(FLT_MAX, 0.0f));
}
END_TEST

/* Every 16411th bit pattern, both signs: about 260000 floats. */
START_TEST(test_sweep_of_all_floats)
{
    for (uint64_t bits = (uint64_t)_i; bits <= UINT32_MAX; bits += 16411)
        expect_as_printf(from_bits((uint32_t)bits));
}
END_TEST

/* Consecutive floats from 0.01 and from -0.3: where vectors' values lie. */
START_TEST(test_dense_runs)
{
    const float starts[] = {0.01f, -0.3f, 1e-4f};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
        float v = starts[s];
        for (int i = 0; i < 30000; i++, v = nextafterf(v, INFINITY))
            expect_as_printf(v);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("float_text");
    TCase *tc = tcase_create("float_text");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_known_texts);
    tcase_add_test(tc, test_edges);
    tcase_add_loop_test(tc, test_sweep_of_all_floats, 0, 1);
    tcase_add_test(tc, test_dense_runs);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
