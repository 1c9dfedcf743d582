/* test_kernels.c — the library's own loops against float64 formulas:
 * softmax, LayerNorm (+ residual), GELU/ReLU, sinusoidal positions, and the
 * sgemm projection wrapper. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/suite.h"
#include "common/util.h"
#include "embedding.h"
#include "kernels.h"
#include "linear.h"
#include "vecmath.h"

static void softmax_f64(double *p, const double *s, int n)
{
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++)
        max = s[j] > max ? s[j] : max;
    for (int j = 0; j < n; j++)
        sum += p[j] = exp(s[j] - max);
    for (int j = 0; j < n; j++)
        p[j] /= sum;
}

START_TEST(test_softmax_matches_f64_and_sums_to_one)
{
    enum { R = 7, C = 33 };
    float s[R * C];
    double d[C], p[C];
    fill_uniform(s, R * C, 3, -8, 8);
    float copy[R * C];
    memcpy(copy, s, sizeof s);
    tf_softmax_rows(s, R, C);
    for (int r = 0; r < R; r++) {
        double sum = 0;
        for (int j = 0; j < C; j++)
            d[j] = copy[r * C + j];
        softmax_f64(p, d, C);
        for (int j = 0; j < C; j++) {
            ck_assert_double_eq_tol(s[r * C + j], p[j], 1e-7);
            sum += s[r * C + j];
        }
        ck_assert_double_eq_tol(sum, 1.0, 1e-6);
    }
}
END_TEST

START_TEST(test_softmax_large_logits_stay_finite)
{
    float s[6] = {1000.0f, 1001.0f, 1002.0f, 1e30f, -1e30f, 0.0f};
    tf_softmax_rows(s, 1, 3);     /* shift-invariant: softmax(0, 1, 2) */
    ck_assert_float_eq_tol(s[0], 0.0900306f, 1e-6f);
    ck_assert_float_eq_tol(s[1], 0.2447285f, 1e-6f);
    ck_assert_float_eq_tol(s[2], 0.6652410f, 1e-6f);
    tf_softmax_rows(s + 3, 1, 3); /* 1e30 takes everything, nothing overflows */
    ck_assert_float_eq(s[3], 1.0f);
    ck_assert_float_eq(s[4], 0.0f);
    ck_assert_float_eq(s[5], 0.0f);
}
END_TEST

START_TEST(test_softmax_fully_masked_row_is_zero_and_nan_propagates)
{
    float s[3 * 4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, /* all masked */
                      0.5f,      NAN,       1.0f,      2.0f,      /* a NaN */
                      -INFINITY, NAN,       -INFINITY, -INFINITY}; /* a NaN among masks */
    tf_softmax_rows(s, 3, 4);
    for (int j = 0; j < 4; j++) {
        ck_assert_float_eq(s[j], 0.0f);
        ck_assert(isnan(s[4 + j]));
        ck_assert(isnan(s[8 + j]));
    }
}
END_TEST

static void layernorm_f64(double *y, const float *x, const float *w, const float *b, int D,
                          double eps)
{
    double mean = 0, var = 0;
    for (int i = 0; i < D; i++)
        mean += x[i];
    mean /= D;
    for (int i = 0; i < D; i++)
        var += ((double)x[i] - mean) * ((double)x[i] - mean);
    var /= D;
    for (int i = 0; i < D; i++)
        y[i] = ((double)x[i] - mean) / sqrt(var + eps) * w[i] + (b ? b[i] : 0.0);
}

START_TEST(test_layernorm_matches_f64)
{
    enum { R = 5, D = 768 };
    float *x = malloc(sizeof(float) * R * D), *y = malloc(sizeof(float) * R * D);
    float w[D], b[D];
    double want[D];
    fill_uniform(x, R * D, 1, -3, 5);
    fill_uniform(w, D, 2, 0.5f, 1.5f);
    fill_uniform(b, D, 3, -0.5f, 0.5f);
    tf_layernorm_rows(y, x, w, b, R, D, 1e-5f);
    for (int r = 0; r < R; r++) {
        layernorm_f64(want, x + r * D, w, b, D, 1e-5);
        for (int i = 0; i < D; i++)
            ck_assert_double_eq_tol(y[r * D + i], want[i], 2e-6);
    }
    free(x), free(y);
}
END_TEST

/* Mean 1e4, spread 1e-3: E[x^2] - E[x]^2 in float would lose everything. */
START_TEST(test_layernorm_large_mean_tiny_spread)
{
    enum { D = 96 };
    float x[D], y[D], w[D], ones[D];
    double want[D];
    for (int i = 0; i < D; i++) {
        x[i] = 1e4f + ((i % 2) ? 1e-3f : -1e-3f) * (float)(1 + i % 3);
        w[i] = ones[i] = 1.0f;
    }
    tf_layernorm_rows(y, x, w, NULL, 1, D, 1e-12f);
    layernorm_f64(want, x, ones, NULL, D, 1e-12);
    for (int i = 0; i < D; i++)
        ck_assert_double_le(fabs(y[i] - want[i]), 1e-3 * fabs(want[i]) + 1e-6);
}
END_TEST

START_TEST(test_layernorm_constant_row_gives_bias)
{
    enum { D = 10 };
    float x[D], w[D], b[D];
    for (int i = 0; i < D; i++)
        x[i] = 3.25f, w[i] = 2.0f, b[i] = 0.1f * (float)i;
    tf_layernorm_rows(x, x, w, b, 1, D, 1e-5f); /* in place */
    for (int i = 0; i < D; i++)
        ck_assert_float_eq(x[i], b[i]);
}
END_TEST

START_TEST(test_add_layernorm_is_layernorm_of_sum)
{
    enum { R = 3, D = 17 };
    float x[R * D], delta[R * D], sum[R * D], w[D], b[D], want[R * D];
    fill_uniform(x, R * D, 4, -1, 1);
    fill_uniform(delta, R * D, 5, -1, 1);
    fill_uniform(w, D, 6, 0.5f, 1.5f);
    fill_uniform(b, D, 7, -1, 1);
    for (int i = 0; i < R * D; i++)
        sum[i] = x[i] + delta[i];
    tf_layernorm_rows(want, sum, w, b, R, D, 1e-5f);
    tf_add_layernorm_rows(x, delta, w, b, R, D, 1e-5f);
    ck_assert_mem_eq(x, want, sizeof want);
}
END_TEST

/* exp: relative error < 3e-7 where the result is normal; exactly 0 below
 * (and for -inf, a mask); NaN stays NaN. */
START_TEST(test_vexpf_matches_f64)
{
    double worst = 0;
    for (int i = 0; i <= 2000000; i++) {
        const float x = -87.3f + 87.3f * (float)i / 2000000.0f;
        worst = fmax(worst, fabs(tf_vexpf(x) / exp((double)x) - 1.0));
    }
    printf("exp: max relative error %.2e\n", worst);
    ck_assert_double_le(worst, 3e-7);
    ck_assert_float_eq(tf_vexpf(-INFINITY), 0.0f);
    ck_assert_float_eq(tf_vexpf(-100.0f), 0.0f);
    ck_assert_float_eq(tf_vexpf(0.0f), 1.0f);
    ck_assert(isnan(tf_vexpf(NAN)));
}
END_TEST

/* Both GELUs within 1e-6 of float64 libm on every 64th float (by bit
 * pattern) of either sign, which covers the whole range, zero, subnormals
 * and the largest values; NaN stays NaN, inf maps to inf. */
START_TEST(test_gelu_everywhere)
{
    double worst_erf = 0, worst_tanh = 0;
    for (uint32_t bits = 0; bits < 0x7f800000u; bits += 64)
        for (int sign = 0; sign < 2; sign++) {
            const uint32_t b = bits | (uint32_t)sign << 31;
            float x;
            memcpy(&x, &b, sizeof x);
            const double xd = x, u = sqrt(2.0 / 3.14159265358979323846) * (xd + 0.044715 * xd * xd * xd);
            const double want_erf = 0.5 * xd * erfc(-xd / sqrt(2.0));
            const double want_tanh = isfinite(u) ? xd / (1.0 + exp(-2.0 * u)) : (u > 0 ? xd : 0.0);
            worst_erf = fmax(worst_erf, fabs(tf_gelu_erf(x) - want_erf));
            worst_tanh = fmax(worst_tanh, fabs(tf_gelu_tanh(x) - want_tanh));
        }
    printf("GELU (erf): max abs error %.2e, GELU (tanh): %.2e over every 64th float\n",
           worst_erf, worst_tanh);
    ck_assert_double_le(worst_erf, 1e-6);
    ck_assert_double_le(worst_tanh, 1e-6);
    ck_assert(isnan(tf_gelu_erf(NAN)) && isnan(tf_gelu_tanh(NAN)));
    ck_assert_float_eq(tf_gelu_erf(INFINITY), INFINITY);
    ck_assert_float_eq(tf_gelu_tanh(INFINITY), INFINITY);
}
END_TEST

START_TEST(test_activations_match_f64)
{
    double worst_erf = 0, worst_tanh = 0;
    for (int i = -200000; i <= 200000; i++) {
        const float x = (float)i * 5e-5f; /* [-10, 10] */
        const double xd = x;
        const double want_erf = 0.5 * xd * (1.0 + erf(xd / sqrt(2.0)));
        const double want_tanh =
            0.5 * xd * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (xd + 0.044715 * xd * xd * xd)));
        worst_erf = fmax(worst_erf, fabs(tf_gelu_erf(x) - want_erf));
        worst_tanh = fmax(worst_tanh, fabs(tf_gelu_tanh(x) - want_tanh));
    }
    ck_assert_double_le(worst_erf, 1e-6);
    ck_assert_double_le(worst_tanh, 1e-6);

    float v[6] = {-2.0f, -0.0f, 0.0f, 3.5f, NAN, 1.0f};
    tf_activation_apply(v, 6, TF_ACTIVATION_RELU);
    ck_assert_float_eq(v[0], 0.0f);
    ck_assert_float_eq(v[3], 3.5f);
    ck_assert(isnan(v[4]));
    float g[2] = {1.0f, -1.0f};
    tf_activation_apply(g, 2, TF_ACTIVATION_GELU);
    ck_assert_float_eq_tol(g[0], 0.8413447f, 1e-6f); /* x * Phi(x) */
    ck_assert_float_eq_tol(g[1], -0.1586553f, 1e-6f);
}
END_TEST

START_TEST(test_sinusoidal_rows_follow_the_formula)
{
    const int dims[] = {512, 7};
    const int64_t positions[] = {0, 1, 4, 100, 5000, 100000};
    for (int d = 0; d < 2; d++) {
        const int D = dims[d];
        float row[512];
        for (int p = 0; p < 6; p++) {
            const int64_t t = positions[p];
            tf_sinusoidal_row(row, t, (size_t)D);
            for (int i = 0; i < D; i++) { /* PE(t, 2k) = sin(t / 10000^(2k/D)), PE(t, 2k+1) = cos */
                const int two_k = i - i % 2;
                const double angle = (double)t / pow(10000.0, (double)two_k / D);
                ck_assert_double_eq_tol(row[i], i % 2 ? cos(angle) : sin(angle), 1e-7);
            }
        }
    }
    float row0[512];
    tf_sinusoidal_row(row0, 0, 512); /* position 0: sin 0 = 0, cos 0 = 1 */
    for (int i = 0; i < 512; i++)
        ck_assert_float_eq(row0[i], i % 2 ? 1.0f : 0.0f);
}
END_TEST

START_TEST(test_linear_matches_f64)
{
    enum { N = 5, OUT = 7, IN = 3 };
    float x[N * IN], w[OUT * IN], b[OUT], y[N * OUT + 1], y_nobias[N * OUT];
    fill_uniform(x, N * IN, 8, -1, 1);
    fill_uniform(w, OUT * IN, 9, -1, 1);
    fill_uniform(b, OUT, 10, -1, 1);
    y[N * OUT] = 42.0f; /* canary just past (N, OUT) */
    tf_linear(y, x, w, b, N, OUT, IN);
    tf_linear(y_nobias, x, w, NULL, N, OUT, IN);
    for (int n = 0; n < N; n++)
        for (int o = 0; o < OUT; o++) {
            double acc = 0;
            for (int i = 0; i < IN; i++)
                acc += (double)x[n * IN + i] * w[o * IN + i];
            ck_assert_double_eq_tol(y_nobias[n * OUT + o], acc, 1e-6);
            ck_assert_double_eq_tol(y[n * OUT + o], acc + b[o], 1e-6);
        }
    ck_assert_float_eq(y[N * OUT], 42.0f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 300); /* the GELU sweep covers 25 million floats */
    tcase_add_test(tc, test_softmax_matches_f64_and_sums_to_one);
    tcase_add_test(tc, test_softmax_large_logits_stay_finite);
    tcase_add_test(tc, test_softmax_fully_masked_row_is_zero_and_nan_propagates);
    tcase_add_test(tc, test_layernorm_matches_f64);
    tcase_add_test(tc, test_layernorm_large_mean_tiny_spread);
    tcase_add_test(tc, test_layernorm_constant_row_gives_bias);
    tcase_add_test(tc, test_add_layernorm_is_layernorm_of_sum);
    tcase_add_test(tc, test_vexpf_matches_f64);
    tcase_add_test(tc, test_gelu_everywhere);
    tcase_add_test(tc, test_activations_match_f64);
    tcase_add_test(tc, test_sinusoidal_rows_follow_the_formula);
    tcase_add_test(tc, test_linear_matches_f64);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
