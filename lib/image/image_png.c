/* image_png.c — a PNG through libpng, converted as PIL's convert("RGB")
 * converts the mode PngImagePlugin.py opens (its _MODES table): the alpha
 * and tRNS dropped, a palette looked up, grey of 1, 2 or 4 bits scaled to
 * 8 (PIL's "1", "L;2", "L;4" unpackers scale as libpng does), 16-bit
 * colour and grey + alpha by their high byte ("RGB;16B", "LA;16B"), 16-bit
 * grey clipped to 255 (mode "I", Convert.c's i2rgb). Of the ancillary
 * chunks only eXIf is read (gamma and colour profiles are not applied: PIL
 * ignores them too).
 * libpng's errors longjmp back here; its warnings print nothing. */
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "image_codecs.h"

/* The data libpng reads, and what went wrong. */
typedef struct png_source {
    const uint8_t *data;
    size_t size, at;
    char message[160];
    int truncated;
} png_source;

static void on_error(png_structp png, png_const_charp message)
{
    png_source *s = png_get_error_ptr(png);
    snprintf(s->message, sizeof s->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void read_bytes(png_structp png, png_bytep to, size_t n)
{
    png_source *s = png_get_io_ptr(png);
    if (n > s->size - s->at) {
        s->truncated = 1;
        png_error(png, "the data ends early");
    }
    memcpy(to, s->data + s->at, n);
    s->at += n;
}

/* 1 for 16-bit grey without alpha (PIL's mode "I"), which libpng gives as
 * its 16-bit samples (with the alpha tRNS may add); every other PNG comes
 * as RGB(A) of 8 bits. */
static int grey16(png_structp png, png_infop info)
{
    return png_get_bit_depth(png, info) == 16 &&
        png_get_color_type(png, info) == PNG_COLOR_TYPE_GRAY;
}

static void set_transforms(png_structp png, png_infop info)
{
    png_set_expand(png); /* palette -> RGB, grey < 8 bits -> 8, tRNS -> alpha */
    if (!grey16(png, info)) {
        png_set_strip_16(png);
        png_set_gray_to_rgb(png);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* Pixel i of `stride` bytes as libpng gave it at p, as RGB at q. */
static void pixel_to_rgb(uint8_t *q, const uint8_t *p, int is_grey16)
{
    if (!is_grey16) {
        memmove(q, p, 3);
        return;
    }
    const unsigned v = (unsigned)p[0] << 8 | p[1];
    q[0] = q[1] = q[2] = v > 255 ? 255 : (uint8_t)v;
}

/* n pixels of `stride` bytes each, packed as libpng gave them from p, into
 * RGB [n, 3] in place: forwards when a pixel shrinks (4 bytes, or 3),
 * backwards when it grows (16-bit grey, 2 bytes). */
static void pack_rgb(uint8_t *p, size_t n, size_t stride, int is_grey16)
{
    if (stride >= 3)
        for (size_t i = 0; i < n; i++)
            pixel_to_rgb(p + 3 * i, p + stride * i, is_grey16);
    else
        for (size_t i = n; i-- > 0;)
            pixel_to_rgb(p + 3 * i, p + stride * i, is_grey16);
}

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The eXIf chunk's orientation (read before the image data), or 1. */
static int orientation_of(png_structp png, png_infop info)
{
    png_uint_32 n = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &n, &exif) == 0 || !exif)
        return 1;
    return tf__exif_orientation(exif, n);
}

tf_status tf__png_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                         tf__image *out, int *orientation)
{
    png_source s = {.data = data, .size = size};
    memset(out, 0, sizeof *out);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: libpng's decoder", req->label);
    }
    /* volatile: set after setjmp and read after the longjmp */
    png_bytep *volatile rows = NULL;
    uint8_t *volatile pixels = NULL;
    volatile tf_status st = TF_OK;
    if (setjmp(png_jmpbuf(png))) {
        tf__free(rows);
        tf__free(pixels);
        png_destroy_read_struct(&png, &info, NULL);
        if (st != TF_OK)
            return st;
        if (s.truncated)
            return tf__fail(TF_ERR_FORMAT, "%s: truncated PNG: the data ends before the image",
                            req->label);
        return tf__fail(TF_ERR_FORMAT, "%s: PNG: %s", req->label, s.message);
    }
    png_set_read_fn(png, &s, read_bytes);
    /* IHDR's size, checked before libpng's own limits (10^6 a side) give a vaguer message;
     * libpng refuses a PNG whose first chunk is not IHDR */
    if (size >= 24 && memcmp(data + 12, "IHDR", 4) == 0 &&
        (st = tf__image_check_size(read_be32(data + 16), read_be32(data + 20), req,
                                   TF_IMAGE_PNG)) != TF_OK)
        png_longjmp(png, 1);
    png_read_info(png, info);
    const png_uint_32 width = png_get_image_width(png, info);
    const png_uint_32 height = png_get_image_height(png, info);
    *orientation = orientation_of(png, info);
    const int is_grey16 = grey16(png, info);
    set_transforms(png, info);
    /* libpng's rows (up to 4 bytes a pixel) and the RGB packed from them */
    const size_t row_bytes = png_get_rowbytes(png, info);
    const size_t bytes = (row_bytes > 3 * (size_t)width ? row_bytes : 3 * (size_t)width) * height;
    if (!(pixels = tf__malloc(bytes)) || !(rows = tf__malloc(height * sizeof *rows)))
        st = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: a PNG of %u x %u pixels", req->label,
                      (unsigned)width, (unsigned)height);
    if (st != TF_OK)
        png_longjmp(png, 1);
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = pixels + y * row_bytes;
    png_read_image(png, rows);
    pack_rgb(pixels, (size_t)width * height, row_bytes / width, is_grey16);
    tf__free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    out->height = (int32_t)height;
    out->width = (int32_t)width;
    out->rgb = pixels; /* [height, width, 3] at its start; the rest unused */
    return TF_OK;
}
