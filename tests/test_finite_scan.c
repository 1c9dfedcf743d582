/* test_finite_scan.c — the scans behind "never a silent NaN" (kernels.h):
 * tf__first_nonfinite finds the first NaN or infinity at every position of
 * every length around the vector width and the block size, and nothing in
 * finite data of any size (FLT_MAX, subnormals, -0); tf__max_abs is the
 * largest magnitude, an infinity wins and a NaN never does. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "common/suite.h"
#include "kernels.h"

enum { MAX_N = 2100 }; /* past two blocks of 1024 */

static float data[MAX_N];

/* Finite values of every kind, none of them zero-only. */
static void fill_finite(size_t n)
{
    const float kinds[] = {1.0f, -FLT_MAX, FLT_MAX, FLT_MIN / 4, -0.0f, 3e38f, -1e-30f};
    for (size_t i = 0; i < n; i++)
        data[i] = kinds[i % (sizeof kinds / sizeof kinds[0])];
}

static const size_t lengths[] = {0,  1,  3,  4,    5,    7,    8,    9,    15,   16,
                                 17, 31, 33, 1023, 1024, 1025, 2048, 2049, MAX_N};

START_TEST(test_first_nonfinite_every_position)
{
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const size_t n = lengths[l];
        fill_finite(n);
        ck_assert_uint_eq(tf__first_nonfinite(data, n), n);
        for (size_t at = 0; at<n; at += n> 64 ? 61 : 1)
            for (size_t k = 0; k < 3; k++) {
                data[at] = bad[k];
                if (at + 1 < n)
                    data[n - 1] = NAN; /* a later one does not matter */
                ck_assert_msg(tf__first_nonfinite(data, n) == at, "n %zu: %g at %zu, found %zu", n,
                              (double)bad[k], at, tf__first_nonfinite(data, n));
                fill_finite(n);
            }
    }
}
END_TEST

START_TEST(test_max_abs)
{
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const size_t n = lengths[l];
        for (size_t i = 0; i < n; i++)
            data[i] = (float)((i * 7919) % 1000) * (i % 2 ? -1.0f : 1.0f);
        if (n > 2)
            data[n / 2] = NAN; /* never wins */
        float want = 0.0f;
        for (size_t i = 0; i < n; i++)
            want = fabsf(data[i]) > want ? fabsf(data[i]) : want; /* false for NaN */
        ck_assert_float_eq(tf__max_abs(data, n), want);
        if (n == 0)
            continue;
        data[n - 1] = -INFINITY; /* always wins */
        ck_assert_float_eq(tf__max_abs(data, n), INFINITY);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("finite_scan");
    TCase *tc = tcase_create("scans");
    tcase_add_test(tc, test_first_nonfinite_every_position);
    tcase_add_test(tc, test_max_abs);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
