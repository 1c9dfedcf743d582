/* image_decode.c — an encoded image's format from its magic bytes, the
 * size check every decoder makes before allocating, and decoding: the
 * format's decoder, then the EXIF orientation. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "image.h"
#include "image_codecs.h"

static const char *const format_names[TF_IMAGE_FORMAT_COUNT] = {"JPEG", "PNG", "WebP"};

const char *tf__image_format_name(tf__image_format format)
{
    return (unsigned)format < TF_IMAGE_FORMAT_COUNT ? format_names[format] : "unknown";
}

/* Magic bytes at an offset, and what they are. */
typedef struct magic {
    size_t offset;
    const char *bytes;
    size_t len;
    int format; /* a tf__image_format, or -1: a format recognised and not read */
    const char *name;
} magic;

static const magic magics[] = {
    {0, "\xff\xd8\xff", 3, TF_IMAGE_JPEG, "JPEG"},
    {0, "\x89PNG\r\n\x1a\n", 8, TF_IMAGE_PNG, "PNG"},
    {8, "WEBP", 4, TF_IMAGE_WEBP, "WebP"}, /* after "RIFF" and the size: checked below */
    {0, "GIF8", 4, -1, "GIF"},
    {0, "BM", 2, -1, "BMP"},
    {0, "II*\0", 4, -1, "TIFF"},
    {0, "MM\0*", 4, -1, "TIFF"},
    {4, "ftyp", 4, -1, "ISO base media (HEIF, AVIF)"},
    {0, "\xff\x0a", 2, -1, "JPEG XL"},
    {0, "\0\0\0\x0cJXL ", 8, -1, "JPEG XL"},
};

static int magic_at(const uint8_t *data, size_t size, const magic *m)
{
    if (size < m->offset + m->len || memcmp(data + m->offset, m->bytes, m->len) != 0)
        return 0;
    return m->format != TF_IMAGE_WEBP || memcmp(data, "RIFF", 4) == 0;
}

tf_status tf__image_sniff(const uint8_t *data, size_t size, const char *label,
                          tf__image_format *format)
{
    if (size == 0)
        return tf__fail(TF_ERR_FORMAT, "%s: empty: no image", label);
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        if (!magic_at(data, size, &magics[i]))
            continue;
        if (magics[i].format < 0)
            return tf__fail(TF_ERR_UNSUPPORTED, "%s: a %s image; JPEG, PNG and WebP are read",
                            label, magics[i].name);
        *format = (tf__image_format)magics[i].format;
        return TF_OK;
    }
    char hex[3 * 8] = ""; /* "xx xx ... xx" */
    for (size_t i = 0; i < size && i < 8; i++)
        snprintf(hex + 3 * i - (i > 0), sizeof hex - 3 * i + (i > 0), i ? " %02x" : "%02x",
                 data[i]);
    return tf__fail(TF_ERR_FORMAT, "%s: not a JPEG, PNG or WebP image: it starts with %s", label,
                    hex);
}

tf_status tf__image_check_size(uint64_t width, uint64_t height, const tf__image_request *req,
                               tf__image_format format)
{
    const char *name = tf__image_format_name(format);
    if (width == 0 || height == 0)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: a %s image of %" PRIu64 " x %" PRIu64 " pixels: no pixels", req->label,
                        name, width, height);
    /* each side below 2^32 (every header's field is), so the product fits */
    const uint64_t pixels = width * height;
    if (width > INT32_MAX || height > INT32_MAX || pixels > (uint64_t)req->max_pixels)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s: a %s image of %" PRIu64 " x %" PRIu64 " = %" PRIu64
                        " pixels, above the limit of %" PRId64,
                        req->label, name, width, height, pixels, req->max_pixels);
    return TF_OK;
}

tf_status tf__image_alloc(int32_t height, int32_t width, tf__image *out)
{
    memset(out, 0, sizeof *out);
    size_t n;
    if (height <= 0 || width <= 0 || !tf__mul_size((size_t)height, (size_t)width, &n) ||
        !tf__mul_size(n, 3, &n) || !(out->rgb = tf__malloc(n)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "an RGB image of %" PRId32 " x %" PRId32 " pixels",
                        width, height);
    out->height = height;
    out->width = width;
    return TF_OK;
}

void tf__image_free(tf__image *img)
{
    if (!img)
        return;
    tf__free(img->rgb);
    memset(img, 0, sizeof *img);
}

typedef tf_status (*decode_fn)(const uint8_t *, size_t, const tf__image_request *, tf__image *,
                               int *);

static const decode_fn decoders[TF_IMAGE_FORMAT_COUNT] = {tf__jpeg_decode, tf__png_decode,
                                                          tf__webp_decode};

tf_status tf__image_decode(const uint8_t *data, size_t size, int64_t max_pixels, const char *label,
                           tf__image *out)
{
    memset(out, 0, sizeof *out);
    if (!data && size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: data is NULL with a size of %zu", label,
                        size);
    if (max_pixels <= 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: max_pixels must be positive, got %" PRId64,
                        label, max_pixels);
    tf__image_format format;
    tf_status st = tf__image_sniff(data, size, label, &format);
    if (st != TF_OK)
        return st;
    const tf__image_request req = {max_pixels, label};
    int orientation = 1;
    st = decoders[format](data, size, &req, out, &orientation);
    if (st == TF_OK && (st = tf__image_orient(out, orientation)) != TF_OK)
        tf__image_free(out);
    return st;
}
