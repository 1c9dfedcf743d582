/* test_kernels.c — the library's own loops against float64 formulas:
 * softmax, LayerNorm (+ residual), GELU/ReLU, sinusoidal positions, and the
 * sgemm projection wrapper. The vector loops (softmax, activations,
 * LayerNorm) are tested in every build of them (kernels.h) that this CPU
 * can run. */
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

/* Whether this CPU runs build i of tf__kernel_builds (the loop tests' _i). */
static int can_run(int i)
{
    return tf__kernel_build_runs_here(&tf__kernel_builds[i]);
}

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
    if (!can_run(_i))
        return;
    enum { R = 7, C = 33 };
    float s[R * C];
    double d[C], p[C];
    fill_uniform(s, R * C, 3, -8, 8);
    float copy[R * C];
    memcpy(copy, s, sizeof s);
    tf__kernel_builds[_i].softmax_rows(s, R, C);
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
    if (!can_run(_i))
        return;
    float s[6] = {1000.0f, 1001.0f, 1002.0f, 1e30f, -1e30f, 0.0f};
    tf__kernel_builds[_i].softmax_rows(s, 1, 3); /* shift-invariant: softmax(0, 1, 2) */
    ck_assert_float_eq_tol(s[0], 0.0900306f, 1e-6f);
    ck_assert_float_eq_tol(s[1], 0.2447285f, 1e-6f);
    ck_assert_float_eq_tol(s[2], 0.6652410f, 1e-6f);
    tf__kernel_builds[_i].softmax_rows(s + 3, 1, 3); /* 1e30 takes everything, nothing overflows */
    ck_assert_float_eq(s[3], 1.0f);
    ck_assert_float_eq(s[4], 0.0f);
    ck_assert_float_eq(s[5], 0.0f);
}
END_TEST

START_TEST(test_softmax_fully_masked_row_is_zero_and_nan_propagates)
{
    if (!can_run(_i))
        return;
    float s[3 * 4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY,  /* all masked */
                      0.5f,      NAN,       1.0f,      2.0f,       /* a NaN */
                      -INFINITY, NAN,       -INFINITY, -INFINITY}; /* a NaN among masks */
    tf__kernel_builds[_i].softmax_rows(s, 3, 4);
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
    if (!can_run(_i))
        return;
    const tf__kernel_build *k = &tf__kernel_builds[_i];
    enum { R = 5, D = 768 };
    float *x = malloc(sizeof(float) * R * D), *y = malloc(sizeof(float) * R * D);
    float w[D], b[D];
    double want[D];
    fill_uniform(x, R * D, 1, -3, 5);
    fill_uniform(w, D, 2, 0.5f, 1.5f);
    fill_uniform(b, D, 3, -0.5f, 0.5f);
    k->layernorm_rows(y, x, w, b, R, D, 1e-5f);
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
    if (!can_run(_i))
        return;
    const tf__kernel_build *k = &tf__kernel_builds[_i];
    enum { D = 96 };
    float x[D], y[D], w[D], ones[D];
    double want[D];
    for (int i = 0; i < D; i++) {
        x[i] = 1e4f + ((i % 2) ? 1e-3f : -1e-3f) * (float)(1 + i % 3);
        w[i] = ones[i] = 1.0f;
    }
    k->layernorm_rows(y, x, w, NULL, 1, D, 1e-12f);
    layernorm_f64(want, x, ones, NULL, D, 1e-12);
    for (int i = 0; i < D; i++)
        ck_assert_double_le(fabs(y[i] - want[i]), 1e-3 * fabs(want[i]) + 1e-6);
}
END_TEST

START_TEST(test_layernorm_constant_row_gives_bias)
{
    if (!can_run(_i))
        return;
    const tf__kernel_build *k = &tf__kernel_builds[_i];
    enum { D = 10 };
    float x[D], w[D], b[D];
    for (int i = 0; i < D; i++)
        x[i] = 3.25f, w[i] = 2.0f, b[i] = 0.1f * (float)i;
    k->layernorm_rows(x, x, w, b, 1, D, 1e-5f); /* in place */
    for (int i = 0; i < D; i++)
        ck_assert_float_eq(x[i], b[i]);
}
END_TEST

START_TEST(test_add_layernorm_is_layernorm_of_sum)
{
    if (!can_run(_i))
        return;
    const tf__kernel_build *k = &tf__kernel_builds[_i];
    enum { R = 3, D = 17 };
    float x[R * D], delta[R * D], sum[R * D], w[D], b[D], want[R * D];
    fill_uniform(x, R * D, 4, -1, 1);
    fill_uniform(delta, R * D, 5, -1, 1);
    fill_uniform(w, D, 6, 0.5f, 1.5f);
    fill_uniform(b, D, 7, -1, 1);
    for (int i = 0; i < R * D; i++)
        sum[i] = x[i] + delta[i];
    k->layernorm_rows(want, sum, w, b, R, D, 1e-5f);
    k->add_layernorm_rows(x, delta, w, b, R, D, 1e-5f);
    ck_assert_mem_eq(x, want, sizeof want);
}
END_TEST

/* exp, through softmax: in a row (0, x_1, .., x_36) with every x <= 0 the
 * maximum is 0, so p_0 = 1 / sum and p_j = e^x_j / sum: p_j / p_0 is e^x_j
 * with one more rounding (of the product by 1 / sum). For x over [-87, 0]
 * its relative error stays below 2e-7; -inf and anything below -87.3 give
 * exactly 0. */
START_TEST(test_exp_through_softmax)
{
    if (!can_run(_i))
        return;
    enum { C = 37, ROWS = 60000 }; /* 2.16 million x; a row is 4 or 2 vectors and a tail */
    float *s = malloc(sizeof(float) * C * ROWS); /* (ROWS, C) */
    float *x = malloc(sizeof(float) * C * ROWS); /* (ROWS, C) */
    ck_assert(s && x);
    const double steps = (double)ROWS * (C - 1) - 1;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t j = 0; j < C; j++) {
            const size_t k = r * (C - 1) + j - 1;
            x[r * C + j] = s[r * C + j] = j == 0 ? 0.0f : (float)(-87.0 * (double)k / steps);
        }
    tf__kernel_builds[_i].softmax_rows(s, ROWS, C);
    double worst = 0;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t j = 1; j < C; j++) {
            const double want = exp((double)x[r * C + j]), got = (double)s[r * C + j] / s[r * C];
            if (s[r * C + j] >= 1e-30f) /* below, the product may be subnormal */
                worst = fmax(worst, fabs(got / want - 1.0));
        }
    printf("%s: exp through softmax, max relative error %.2e\n", tf__kernel_builds[_i].name, worst);
    ck_assert_double_le(worst, 2e-7);
    float edge[5] = {0.0f, -INFINITY, -100.0f, -87.4f, 0.0f};
    tf__kernel_builds[_i].softmax_rows(edge, 1, 5);
    ck_assert_float_eq(edge[0], 0.5f);
    ck_assert_float_eq(edge[1], 0.0f);
    ck_assert_float_eq(edge[2], 0.0f);
    ck_assert_float_eq(edge[3], 0.0f);
    ck_assert_float_eq(edge[4], 0.5f);
    free(s), free(x);
}
END_TEST

static double gelu_erf_f64(double x)
{
    return 0.5 * x * erfc(-x / sqrt(2.0));
}

/* x / (1 + e^-2u) is 0.5 x (1 + tanh u) without its cancellation */
static double gelu_tanh_f64(double x)
{
    const double u = sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
    return isfinite(u) ? x / (1.0 + exp(-2.0 * u)) : (u > 0 ? x : 0.0);
}

/* The largest |act(x) - want| over x (n), want (n) the float64 values,
 * divided by max(1, |want|) when `relative` (SiLU, whose values near x for
 * x past 10 are only as exact as their float32 rounding); out is scratch
 * (n). */
static double activation_error(const tf__kernel_build *b, int act, const float *x,
                               const double *want, float *out, size_t n, int relative)
{
    memcpy(out, x, n * sizeof *out);
    b->activation_apply(out, n, act);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = fmax(worst, fabs(out[i] - want[i]) / (relative ? fmax(1.0, fabs(want[i])) : 1.0));
    return worst;
}

/* x / (1 + e^-x), with e^-x past double's range giving x e^x's 0 */
static double silu_f64(double x)
{
    return x < -700.0 ? 0.0 * x : x / (1.0 + exp(-x));
}

/* x / (1 + e^(-1.702 x)), with the exponential past double's range giving 0 */
static double quick_gelu_f64(double x)
{
    return x < -400.0 ? 0.0 * x : x / (1.0 + exp(-1.702 * x));
}

enum { MAX_BUILDS = 4, GELUS = 4 };
static const int gelus[GELUS] = {TF_ACTIVATION_GELU, TF_ACTIVATION_GELU_TANH, TF_ACTIVATION_SILU,
                                 TF_ACTIVATION_QUICK_GELU};
static double (*const gelus_f64[GELUS])(double) = {gelu_erf_f64, gelu_tanh_f64, silu_f64,
                                                   quick_gelu_f64};
static const char *const gelu_names[GELUS] = {"GELU (erf)", "GELU (tanh)", "SiLU", "quick GELU"};

/* Both GELUs, SiLU and quick GELU (the last two relatively, past 1) within 1e-6 of float64 libm on every 64th float (by bit
 * pattern) of either sign, which covers the whole range, zero, subnormals
 * and the largest values, in every build this CPU runs (the float64 values
 * computed once for all of them); NaN stays NaN, inf maps to inf. Chunks of
 * an odd length, so the vector loops' tails are in it too. */
START_TEST(test_gelu_everywhere)
{
    enum { CHUNK = 65521 };
    ck_assert_uint_le(tf__kernel_build_count, MAX_BUILDS);
    float *x = malloc(sizeof(float) * CHUNK), *out = malloc(sizeof(float) * CHUNK);
    double *want = malloc(sizeof(double) * CHUNK);
    ck_assert(x && out && want);
    double worst[MAX_BUILDS][GELUS] = {{0}};
    size_t n = 0;
    for (uint32_t bits = 0; bits < 0x7f800000u; bits += 64)
        for (uint32_t sign = 0; sign < 2; sign++) {
            const uint32_t pattern = bits | sign << 31;
            memcpy(&x[n++], &pattern, sizeof *x);
            const int last = bits + 64 >= 0x7f800000u && sign == 1;
            if (n < CHUNK && !last)
                continue;
            for (int g = 0; g < GELUS; g++) {
                for (size_t i = 0; i < n; i++)
                    want[i] = gelus_f64[g](x[i]);
                for (size_t b = 0; b < tf__kernel_build_count; b++)
                    if (tf__kernel_build_runs_here(&tf__kernel_builds[b]))
                        worst[b][g] = fmax(worst[b][g],
                                           activation_error(&tf__kernel_builds[b], gelus[g], x,
                                                            want, out, n, g >= 2));
            }
            n = 0;
        }
    for (size_t b = 0; b < tf__kernel_build_count; b++) {
        const tf__kernel_build *build = &tf__kernel_builds[b];
        if (!tf__kernel_build_runs_here(build))
            continue;
        printf("%s: GELU (erf) max abs error %.2e, GELU (tanh) %.2e, SiLU %.2e, quick GELU "
               "%.2e over every 64th float\n",
               build->name, worst[b][0], worst[b][1], worst[b][2], worst[b][3]);
        for (int g = 0; g < GELUS; g++) {
            ck_assert_msg(worst[b][g] <= 1e-6, "%s build, %s: max abs error %g > 1e-6", build->name,
                          gelu_names[g], worst[b][g]);
            float special[3] = {NAN, INFINITY, 1.0f};
            build->activation_apply(special, 3, gelus[g]);
            ck_assert(isnan(special[0]));
            ck_assert_float_eq(special[1], INFINITY);
        }
    }
    free(x), free(out), free(want);
}
END_TEST

static double gelu_erf_by_erf_f64(double x)
{
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static double gelu_tanh_by_tanh_f64(double x)
{
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
}

/* Over [-10, 10] against the textbook formulas (erf and tanh themselves);
 * ReLU's and GELU's values at a few points. */
START_TEST(test_activations_match_f64)
{
    if (!can_run(_i))
        return;
    enum { N = 400001 };
    float *x = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
    double *want_erf = malloc(sizeof(double) * N), *want_tanh = malloc(sizeof(double) * N);
    ck_assert(x && out && want_erf && want_tanh);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i - N / 2) * 5e-5f; /* [-10, 10] */
        want_erf[i] = gelu_erf_by_erf_f64(x[i]);
        want_tanh[i] = gelu_tanh_by_tanh_f64(x[i]);
    }
    const tf__kernel_build *b = &tf__kernel_builds[_i];
    ck_assert_double_le(activation_error(b, TF_ACTIVATION_GELU, x, want_erf, out, N, 0), 1e-6);
    ck_assert_double_le(activation_error(b, TF_ACTIVATION_GELU_TANH, x, want_tanh, out, N, 0),
                        1e-6);
    free(x), free(out), free(want_erf), free(want_tanh);

    float v[6] = {-2.0f, -0.0f, 0.0f, 3.5f, NAN, 1.0f};
    tf__kernel_builds[_i].activation_apply(v, 6, TF_ACTIVATION_RELU);
    ck_assert_float_eq(v[0], 0.0f);
    ck_assert_float_eq(v[3], 3.5f);
    ck_assert(isnan(v[4]));
    ck_assert_float_eq(v[5], 1.0f);
    float g[2] = {1.0f, -1.0f};
    tf__kernel_builds[_i].activation_apply(g, 2, TF_ACTIVATION_GELU);
    ck_assert_float_eq_tol(g[0], 0.8413447f, 1e-6f); /* x * Phi(x) */
    ck_assert_float_eq_tol(g[1], -0.1586553f, 1e-6f);
}
END_TEST

/* tf__softmax_rows and tf__activation_apply run the build that
 * tf__kernel_build_chosen names — the last one this CPU can run — and their
 * results are that build's, bit for bit. */
START_TEST(test_dispatch_runs_the_named_build)
{
    const tf__kernel_build *chosen = tf__kernel_build_chosen(), *last_runnable = NULL;
    for (size_t i = 0; i < tf__kernel_build_count; i++)
        if (tf__kernel_build_runs_here(&tf__kernel_builds[i]))
            last_runnable = &tf__kernel_builds[i];
    ck_assert_ptr_eq(chosen, last_runnable);
    enum { R = 5, C = 101 };
    float a[R * C], b[R * C];
    fill_uniform(a, R * C, 11, -20, 20);
    memcpy(b, a, sizeof a);
    tf__softmax_rows(a, R, C);
    chosen->softmax_rows(b, R, C);
    ck_assert_mem_eq(a, b, sizeof a);
    fill_uniform(a, R * C, 12, -6, 6);
    memcpy(b, a, sizeof a);
    tf__activation_apply(a, R * C, TF_ACTIVATION_GELU);
    chosen->activation_apply(b, R * C, TF_ACTIVATION_GELU);
    ck_assert_mem_eq(a, b, sizeof a);
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
            tf__sinusoidal_row(row, t, (size_t)D);
            for (int i = 0; i < D; i++) { /* PE(t, 2k) = sin(t / 10000^(2k/D)), PE(t, 2k+1) = cos */
                const int two_k = i - i % 2;
                const double angle = (double)t / pow(10000.0, (double)two_k / D);
                ck_assert_double_eq_tol(row[i], i % 2 ? cos(angle) : sin(angle), 1e-7);
            }
        }
    }
    float row0[512];
    tf__sinusoidal_row(row0, 0, 512); /* position 0: sin 0 = 0, cos 0 = 1 */
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
    tf__linear(y, x, w, b, N, OUT, IN);
    tf__linear(y_nobias, x, w, NULL, N, OUT, IN);
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
    tcase_set_timeout(tc, 600); /* the GELU sweep covers 67 million floats per build */
    const int builds = (int)tf__kernel_build_count; /* the loop tests run once per build */
    tcase_add_loop_test(tc, test_softmax_matches_f64_and_sums_to_one, 0, builds);
    tcase_add_loop_test(tc, test_softmax_large_logits_stay_finite, 0, builds);
    tcase_add_loop_test(tc, test_softmax_fully_masked_row_is_zero_and_nan_propagates, 0, builds);
    tcase_add_loop_test(tc, test_layernorm_matches_f64, 0, builds);
    tcase_add_loop_test(tc, test_layernorm_large_mean_tiny_spread, 0, builds);
    tcase_add_loop_test(tc, test_layernorm_constant_row_gives_bias, 0, builds);
    tcase_add_loop_test(tc, test_add_layernorm_is_layernorm_of_sum, 0, builds);
    tcase_add_loop_test(tc, test_exp_through_softmax, 0, builds);
    tcase_add_test(tc, test_gelu_everywhere);
    tcase_add_loop_test(tc, test_activations_match_f64, 0, builds);
    tcase_add_test(tc, test_dispatch_runs_the_named_build);
    tcase_add_test(tc, test_sinusoidal_rows_follow_the_formula);
    tcase_add_test(tc, test_linear_matches_f64);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
