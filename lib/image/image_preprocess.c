/* image_preprocess.c — transformers' image processors' preprocess() on one
 * uint8 RGB image: resize, center crop, rescale, normalise, channels first
 * (image_preprocess.h names the upstream function of each step). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "error.h"
#include "image_preprocess.h"

static tf_status check_side(int32_t v, const char *name)
{
    if (v < 1 || v > TF_IMAGE_MAX_SIDE)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "image preprocessing: %s must be in 1..%d, got %d",
                        name, TF_IMAGE_MAX_SIDE, (int)v);
    return TF_OK;
}

tf_status tf__image_preprocess_check(const tf__image_preprocess *p)
{
    tf_status st = TF_OK;
    if (p->do_resize) {
        if (p->shortest_edge)
            st = check_side(p->shortest_edge, "shortest_edge");
        else if ((st = check_side(p->resize_height, "size height")) == TF_OK)
            st = check_side(p->resize_width, "size width");
        if (st != TF_OK)
            return st;
        if ((unsigned)p->resample >= TF_RESAMPLE_COUNT || p->resample == TF_RESAMPLE_NEAREST)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "image preprocessing: resample %d (%s) is not supported; "
                            "1 LANCZOS, 2 BILINEAR, 3 BICUBIC, 4 BOX and 5 HAMMING are",
                            (int)p->resample, tf__resample_name(p->resample));
    }
    if (p->do_center_crop &&
        ((st = check_side(p->crop_height, "crop height")) != TF_OK ||
         (st = check_side(p->crop_width, "crop width")) != TF_OK))
        return st;
    if (p->do_rescale && !isfinite(p->rescale_factor))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "image preprocessing: rescale_factor must be finite, got %g",
                        p->rescale_factor);
    for (int c = 0; p->do_normalize && c < 3; c++)
        if (!isfinite(p->mean[c]) || !isfinite(p->std[c]) || p->std[c] == 0.0f)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "image preprocessing: channel %d's mean %g and std %g must be finite, "
                            "the std not 0",
                            c, (double)p->mean[c], (double)p->std[c]);
    return TF_OK;
}

void tf__image_resized_size(const tf__image_preprocess *p, int32_t in_h, int32_t in_w, int32_t *h,
                            int32_t *w)
{
    *h = in_h;
    *w = in_w;
    if (!p->do_resize)
        return;
    if (!p->shortest_edge) {
        *h = p->resize_height;
        *w = p->resize_width;
        return;
    }
    /* get_resize_output_image_size: int(requested_new_short * long / short) */
    const int64_t s = in_w <= in_h ? in_w : in_h, l = in_w <= in_h ? in_h : in_w;
    const double long_side = (double)((int64_t)p->shortest_edge * l) / (double)s;
    const int32_t new_long = long_side >= INT32_MAX ? INT32_MAX : (int32_t)long_side;
    *h = in_w <= in_h ? new_long : p->shortest_edge;
    *w = in_w <= in_h ? p->shortest_edge : new_long;
}

void tf__image_output_size(const tf__image_preprocess *p, int32_t in_h, int32_t in_w, int32_t *h,
                           int32_t *w)
{
    tf__image_resized_size(p, in_h, in_w, h, w);
    if (p->do_center_crop) {
        *h = p->crop_height;
        *w = p->crop_width;
    }
}

/* Python's a // b for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The pixel at output row y, column x of center_crop: the source image's,
 * or zero where the crop passes its edge. top and left may be negative. */
static const uint8_t *crop_pixel(const tf__image *img, int64_t top, int64_t left, int64_t y,
                                 int64_t x)
{
    static const uint8_t zero[3] = {0, 0, 0};
    const int64_t sy = top + y, sx = left + x;
    if (sy < 0 || sy >= img->height || sx < 0 || sx >= img->width)
        return zero;
    return img->rgb + ((size_t)sy * img->width + (size_t)sx) * 3;
}

/* The float32 of one uint8 channel value after rescale and normalize. */
static float pixel_value(const tf__image_preprocess *p, uint8_t v, int c)
{
    float x = p->do_rescale ? (float)((double)v * p->rescale_factor) : (float)v;
    if (p->do_normalize)
        x = (x - p->mean[c]) / p->std[c];
    return x;
}

tf_status tf__image_preprocess_run(const tf__image_preprocess *p, const tf__image *in,
                                   int64_t max_pixels, float *out, size_t out_len)
{
    tf_status st = tf__image_preprocess_check(p);
    if (st != TF_OK)
        return st;
    int32_t rh, rw, oh, ow;
    tf__image_resized_size(p, in->height, in->width, &rh, &rw);
    tf__image_output_size(p, in->height, in->width, &oh, &ow);
    if (rh < 1 || rw < 1 || (int64_t)rh * rw > max_pixels)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "image preprocessing: a %d x %d image resized to %d x %d = %" PRId64
                        " pixels, outside 1..%" PRId64,
                        (int)in->width, (int)in->height, (int)rw, (int)rh, (int64_t)rh * rw,
                        max_pixels);
    const size_t plane = (size_t)oh * (size_t)ow;
    if (out_len < 3 * plane)
        return tf__fail(TF_ERR_SHAPE,
                        "image preprocessing: out holds %zu floats, pixel_values [3, %d, %d] "
                        "needs %zu",
                        out_len, (int)oh, (int)ow, 3 * plane);
    tf__image resized = {0};
    const tf__image *img = in;
    if (rh != in->height || rw != in->width) {
        if ((st = tf__image_resize(in, rh, rw, p->resample, &resized)) != TF_OK)
            return st;
        img = &resized;
    }
    /* center_crop's top and left; without a crop the whole image */
    const int64_t top = p->do_center_crop ? floor_div((int64_t)rh - oh, 2) : 0;
    const int64_t left = p->do_center_crop ? floor_div((int64_t)rw - ow, 2) : 0;
    for (int64_t y = 0; y < oh; y++)
        for (int64_t x = 0; x < ow; x++) {
            const uint8_t *px = crop_pixel(img, top, left, y, x);
            for (int c = 0; c < 3; c++)
                out[(size_t)c * plane + (size_t)y * ow + (size_t)x] = pixel_value(p, px[c], c);
        }
    tf__image_free(&resized);
    return TF_OK;
}
