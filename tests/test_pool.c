/* test_pool.c — sentence vectors (tf_pool) against float64 formulas: CLS,
 * mean over real tokens, L2 normalisation, empty sequences, errors. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "common/expect.h"
#include "common/suite.h"
#include "common/util.h"
#include "tfenc.h"

enum { B = 3, T = 5, D = 7 };

START_TEST(test_mean_and_cls_match_f64)
{
    float hidden[B * T * D], out[B * D];
    const int32_t lengths[B] = {5, 2, 0};
    fill_uniform(hidden, B * T * D, 1, -2, 2);
    for (int pooling = TF_POOLING_CLS; pooling <= TF_POOLING_MEAN; pooling++)
        for (int normalize = 0; normalize <= 1; normalize++) {
            ck_assert_int_eq(tf_pool(hidden, lengths, B, T, D, pooling, normalize, out), TF_OK);
            for (int b = 0; b < B; b++) {
                double want[D], norm = 0;
                const int rows = pooling == TF_POOLING_CLS ? lengths[b] > 0 : lengths[b];
                for (int i = 0; i < D; i++) {
                    double sum = 0;
                    for (int t = 0; t < rows; t++)
                        sum += hidden[(b * T + t) * D + i];
                    want[i] = rows ? sum / rows : 0.0;
                    norm += want[i] * want[i];
                }
                for (int i = 0; i < D; i++) {
                    const double w = normalize && norm > 0 ? want[i] / sqrt(norm) : want[i];
                    ck_assert_double_eq_tol(out[b * D + i], w, 1e-6);
                }
            }
        }
    ck_assert_float_eq(out[2 * D], 0.0f); /* empty sequence: zeros, not NaN */
}
END_TEST

START_TEST(test_all_tokens_when_no_lengths)
{
    float hidden[B * T * D], all[B * D], with_t[B * D];
    const int32_t full[B] = {T, T, T};
    fill_uniform(hidden, B * T * D, 2, -1, 1);
    ck_assert_int_eq(tf_pool(hidden, NULL, B, T, D, TF_POOLING_MEAN, 1, all), TF_OK);
    ck_assert_int_eq(tf_pool(hidden, full, B, T, D, TF_POOLING_MEAN, 1, with_t), TF_OK);
    ck_assert_mem_eq(all, with_t, sizeof all);
    double norm = 0;
    for (int i = 0; i < D; i++)
        norm += (double)all[i] * all[i];
    ck_assert_double_eq_tol(norm, 1.0, 1e-6);
}
END_TEST

START_TEST(test_errors)
{
    float hidden[B * T * D] = {0}, out[B * D];
    const int32_t bad[B] = {5, 6, 0};
    expect_failure(tf_pool(NULL, NULL, B, T, D, 0, 0, out), TF_ERR_INVALID_ARGUMENT,
                   "hidden is NULL");
    expect_failure(tf_pool(hidden, NULL, B, T, D, 0, 0, NULL), TF_ERR_INVALID_ARGUMENT,
                   "out is NULL");
    expect_failure(tf_pool(hidden, NULL, 0, T, D, 0, 0, out), TF_ERR_INVALID_ARGUMENT,
                   "batch 0, seq_len 5, d_model 7: expected >= 1");
    expect_failure(tf_pool(hidden, NULL, B, T, D, 6, 0, out), TF_ERR_INVALID_ARGUMENT,
                   "pooling: expected 0 (CLS) .. 5 (last token), got 6");
    expect_failure(tf_pool(hidden, NULL, B, T, D, 0, 5, out), TF_ERR_INVALID_ARGUMENT,
                   "normalize: expected 0 or 1, got 5");
    expect_failure(tf_pool(hidden, bad, B, T, D, 1, 0, out), TF_ERR_INVALID_ARGUMENT,
                   "lengths[1] = 6 is outside 0..seq_len 5");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, test_mean_and_cls_match_f64);
    tcase_add_test(tc, test_all_tokens_when_no_lengths);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
