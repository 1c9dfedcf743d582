/* image_resize.c — Pillow's resize of a uint8 image (libImaging/Resample.c:
 * precompute_coeffs, normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc,
 * ImagingResampleVertical_8bpc, ImagingResampleInner), for RGB [H, W, 3]. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "image_preprocess.h"

/* 8 bits of result and 2 of headroom (the filters have negative lobes) in
 * an int: Resample.c's PRECISION_BITS. */
#define PRECISION_BITS (32 - 8 - 2)

/* M_PI, which ISO C does not define */
#define PI 3.14159265358979323846

/* Pillow's filters (Resample.c's box_filter ... lanczos_filter). */
static double box_filter(double x)
{
    return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;
}

static double bilinear_filter(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

static double hamming_filter(double x)
{
    x = fabs(x);
    if (x == 0.0)
        return 1.0;
    if (x >= 1.0)
        return 0.0;
    x = x * PI;
    return sin(x) / x * (0.54f + 0.46f * cos(x));
}

static double bicubic_filter(double x)
{
    const double a = -0.5;
    x = fabs(x);
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0)
        return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

static double sinc(double x)
{
    if (x == 0.0)
        return 1.0;
    x = x * PI;
    return sin(x) / x;
}

static double lanczos_filter(double x)
{
    return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0;
}

typedef struct filter {
    const char *name;
    double (*f)(double x);
    double support;
} filter;

static const filter filters[TF_RESAMPLE_COUNT] = {
    [TF_RESAMPLE_NEAREST] = {"NEAREST", NULL, 0.0},
    [TF_RESAMPLE_LANCZOS] = {"LANCZOS", lanczos_filter, 3.0},
    [TF_RESAMPLE_BILINEAR] = {"BILINEAR", bilinear_filter, 1.0},
    [TF_RESAMPLE_BICUBIC] = {"BICUBIC", bicubic_filter, 2.0},
    [TF_RESAMPLE_BOX] = {"BOX", box_filter, 0.5},
    [TF_RESAMPLE_HAMMING] = {"HAMMING", hamming_filter, 1.0},
};

const char *tf__resample_name(int resample)
{
    return resample >= 0 && resample < TF_RESAMPLE_COUNT ? filters[resample].name : "unknown";
}

/* One pass's coefficients: output position i reads inputs first[i] ..
 * first[i] + count[i] - 1 with weights k[i * ksize ...] (fixed point). */
typedef struct coeffs {
    int ksize;
    int *first, *count; /* [out_size] */
    int32_t *k;         /* [out_size, ksize] */
} coeffs;

/* Frees c's arrays; c is zeroed (freeing it again does nothing). */
static void coeffs_free(coeffs *c)
{
    tf__free(c->first);
    tf__free(c->count);
    tf__free(c->k);
    memset(c, 0, sizeof *c);
}

/* precompute_coeffs and normalize_coeffs_8bpc for in_size -> out_size. */
static tf_status coeffs_make(int in_size, int out_size, const filter *fl, coeffs *c)
{
    memset(c, 0, sizeof *c);
    const double scale = (double)in_size / out_size;
    const double filterscale = scale < 1.0 ? 1.0 : scale;
    const double support = fl->support * filterscale;
    c->ksize = (int)ceil(support) * 2 + 1;
    size_t n;
    double *w = NULL; /* [ksize], one position's weights before fixing */
    if (!tf__mul_size((size_t)out_size, (size_t)c->ksize, &n) ||
        !(c->first = tf__malloc((size_t)out_size * sizeof *c->first)) ||
        !(c->count = tf__malloc((size_t)out_size * sizeof *c->count)) ||
        !(c->k = tf__calloc(n, sizeof *c->k)) || !(w = tf__malloc(c->ksize * sizeof *w))) {
        coeffs_free(c);
        tf__free(w);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "resize coefficients for %d -> %d pixels", in_size,
                        out_size);
    }
    for (int i = 0; i < out_size; i++) {
        const double center = (i + 0.5) * scale, ss = 1.0 / filterscale;
        int lo = (int)(center - support + 0.5), hi = (int)(center + support + 0.5);
        lo = lo < 0 ? 0 : lo;
        hi = (hi > in_size ? in_size : hi) - lo;
        double sum = 0.0;
        for (int x = 0; x < hi; x++)
            sum += w[x] = fl->f((x + lo - center + 0.5) * ss);
        int32_t *k = c->k + (size_t)i * c->ksize;
        for (int x = 0; x < hi; x++) {
            const double v = (sum != 0.0 ? w[x] / sum : w[x]) * (1 << PRECISION_BITS);
            k[x] = (int32_t)(v < 0 ? v - 0.5 : v + 0.5);
        }
        c->first[i] = lo;
        c->count[i] = hi;
    }
    tf__free(w);
    return TF_OK;
}

/* A fixed-point sum as uint8: Resample.c's clip8. */
static uint8_t clip8(int32_t ss)
{
    const int32_t v = ss >> PRECISION_BITS;
    return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
}

/* Rows first_row .. first_row + rows - 1 of in [.., in_w, 3] resampled
 * along x into out [rows, c->out, 3]. */
static void pass_horizontal(uint8_t *out, int out_w, const uint8_t *in, int in_w, int first_row,
                            int rows, const coeffs *c)
{
    for (int y = 0; y < rows; y++) {
        const uint8_t *row = in + (size_t)(first_row + y) * in_w * 3;
        for (int x = 0; x < out_w; x++) {
            const int32_t *k = c->k + (size_t)x * c->ksize;
            const uint8_t *p = row + (size_t)c->first[x] * 3;
            int32_t s0 = 1 << (PRECISION_BITS - 1), s1 = s0, s2 = s0;
            for (int j = 0; j < c->count[x]; j++) {
                s0 += p[3 * j] * k[j];
                s1 += p[3 * j + 1] * k[j];
                s2 += p[3 * j + 2] * k[j];
            }
            uint8_t *o = out + ((size_t)y * out_w + x) * 3;
            o[0] = clip8(s0);
            o[1] = clip8(s1);
            o[2] = clip8(s2);
        }
    }
}

/* in [.., w, 3] resampled along y into out [out_h, w, 3]; c's first rows
 * are relative to in's first row. sums [w * 3] is scratch: a row's sums
 * accumulate input row by input row, in memory order. */
static void pass_vertical(uint8_t *out, int out_h, const uint8_t *in, int w, const coeffs *c,
                          int32_t *sums)
{
    const size_t stride = (size_t)w * 3;
    for (int y = 0; y < out_h; y++) {
        const int32_t *k = c->k + (size_t)y * c->ksize;
        const uint8_t *rows = in + (size_t)c->first[y] * stride;
        for (size_t i = 0; i < stride; i++)
            sums[i] = 1 << (PRECISION_BITS - 1);
        for (int j = 0; j < c->count[y]; j++)
            for (size_t i = 0; i < stride; i++)
                sums[i] += rows[j * stride + i] * k[j];
        for (size_t i = 0; i < stride; i++)
            out[y * stride + i] = clip8(sums[i]);
    }
}

tf_status tf__image_resize(const tf__image *in, int32_t out_h, int32_t out_w, tf__resample resample,
                           tf__image *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)resample >= TF_RESAMPLE_COUNT || !filters[resample].f)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "resample %d (%s) is not a filter PIL resizes with", (int)resample,
                        tf__resample_name(resample));
    const filter *fl = &filters[resample];
    coeffs cv, ch = {0};
    tf_status st = coeffs_make(in->height, out_h, fl, &cv);
    if (st != TF_OK)
        return st;
    /* the horizontal pass computes only the rows the vertical one reads */
    const int row0 = cv.first[0], rows = cv.first[out_h - 1] + cv.count[out_h - 1] - row0;
    tf__image tmp = {0};
    int32_t *sums = NULL;      /* [out_w * 3], the vertical pass's */
    const tf__image *src = in; /* [rows or H, out_w, 3] after the horizontal pass */
    if (out_w != in->width) {
        if ((st = coeffs_make(in->width, out_w, fl, &ch)) != TF_OK ||
            (st = tf__image_alloc(rows, out_w, &tmp)) != TF_OK)
            goto done;
        pass_horizontal(tmp.rgb, out_w, in->rgb, in->width, row0, rows, &ch);
        for (int y = 0; y < out_h; y++)
            cv.first[y] -= row0;
        src = &tmp;
    }
    if ((st = tf__image_alloc(out_h, out_w, out)) != TF_OK)
        goto done;
    if (out_h != in->height) {
        if (!(sums = tf__malloc((size_t)out_w * 3 * sizeof *sums))) {
            tf__image_free(out);
            st = tf__fail(TF_ERR_OUT_OF_MEMORY, "a resize row of %d pixels", (int)out_w);
            goto done;
        }
        pass_vertical(out->rgb, out_h, src->rgb, out_w, &cv, sums);
    } else /* the horizontal pass's rows are all of them, or the image as it is */
        memcpy(out->rgb, src->rgb, (size_t)out_h * out_w * 3);
done:
    tf__free(sums);
    coeffs_free(&cv);
    coeffs_free(&ch);
    tf__image_free(&tmp);
    return st;
}
