/* image.h — an encoded image (JPEG, PNG, WebP) decoded from bytes into RGB
 * uint8 [H, W, 3], as transformers' image_utils.load_image sees a file:
 * PIL.Image.open, then PIL.ImageOps.exif_transpose (the EXIF Orientation
 * tag applied), then .convert("RGB") (Pillow 9.4, Debian 12's python3-pil).
 * Decoding is libjpeg-turbo's, libpng's and libwebp's; no file is read here
 * (formats/image/image_file.c reads a path into bytes).
 *
 * What convert("RGB") gives, mode by mode, and so what this gives:
 *   grey (PNG 1/2/4/8-bit, JPEG)      the grey level in R, G and B
 *   grey + alpha, RGBA, tRNS          the alpha dropped, never composited
 *   palette (with or without tRNS)    the palette's colour
 *   16-bit PNG, RGB / RGBA / GA       the high byte of each sample
 *   16-bit PNG, grey                  min(value, 255): PIL opens it as mode
 *                                     "I" and clips I -> RGB (Convert.c's
 *                                     i2rgb), so most of it is white
 *   CMYK and YCCK JPEG                libjpeg's CMYK, inverted as Adobe's
 *                                     (PIL's "CMYK;I"), then Convert.c's
 *                                     cmyk2rgb: R = (255 - K) - C (255 - K) / 255
 *   interlaced PNG, progressive JPEG  the whole image
 *   animated WebP                     the first frame on a transparent canvas
 *                                     (WebPAnimDecoder's, which PIL uses for
 *                                     every WebP), alpha dropped
 *   animated PNG (APNG)               the default image (IDAT), PIL's frame 0
 *
 * The Orientation tag (0x0112, values 2-8; any other is none) is read from a
 * JPEG's first APP1 "Exif\0\0" segment, a PNG's eXIf chunk before the image
 * data and a WebP's EXIF chunk. PIL 9.4 also reads an orientation from a
 * PNG's XMP text (tiff:Orientation) and ImageMagick's "Raw profile type
 * exif" text; these two are not read here.
 *
 * Refused before any allocation proportional to the image, from the
 * header's dimensions: more than max_pixels pixels (TF_IMAGE_MAX_PIXELS,
 * PIL's Image.MAX_IMAGE_PIXELS, by default), TF_ERR_INVALID_ARGUMENT naming
 * the dimensions, their product and the limit. Refused with TF_ERR_FORMAT
 * naming what is wrong: data that ends early (PIL refuses a truncated file
 * too: ImageFile.LOAD_TRUNCATED_IMAGES is off), a progressive JPEG of more
 * than TF_IMAGE_MAX_JPEG_SCANS scans (libjpeg-turbo's advice against
 * decompression bombs of many tiny scans), anything the decoders reject
 * (their message quoted). The decoders never exit, never print (their
 * error and warning handlers are this library's) and free what they hold
 * on every failure. */
#ifndef TF_IMAGE_H
#define TF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* PIL's Image.MAX_IMAGE_PIXELS (1024 * 1024 * 1024 // 4 // 3): PIL warns
 * above it and refuses above twice it; here it is refused above it. */
#define TF_IMAGE_MAX_PIXELS 89478485
/* The most scans a progressive JPEG may have (djpeg's -maxscans). */
#define TF_IMAGE_MAX_JPEG_SCANS 1000

typedef enum tf__image_format {
    TF_IMAGE_JPEG = 0,
    TF_IMAGE_PNG = 1,
    TF_IMAGE_WEBP = 2,
    TF_IMAGE_FORMAT_COUNT = 3
} tf__image_format;

/* "JPEG", "PNG", "WebP". */
const char *tf__image_format_name(tf__image_format format);

/* An RGB image, rows top to bottom. */
typedef struct tf__image {
    int32_t height, width;
    uint8_t *rgb; /* [height, width, 3] */
} tf__image;

/* The format size bytes of data start as (their magic bytes). Empty data is
 * TF_ERR_FORMAT "<label>: empty: no image"; a GIF, BMP, TIFF, ISO base
 * media (HEIF, AVIF) or JPEG XL image TF_ERR_UNSUPPORTED "<label>: a GIF
 * image; JPEG, PNG and WebP are read"; anything else TF_ERR_FORMAT
 * "<label>: not a JPEG, PNG or WebP image: it starts with <up to 8 bytes
 * in hex>". label names the data in messages (a file's path). */
tf_status tf__image_sniff(const uint8_t *data, size_t size, const char *label,
                          tf__image_format *format);

/* The image in size bytes of data, decoded, oriented and converted as
 * above, into *out (tf__image_free it; zeroed on failure). max_pixels > 0
 * bounds height x width (TF_IMAGE_MAX_PIXELS by default). A library built
 * without images (-Dimages=disabled) gives TF_ERR_UNSUPPORTED for every
 * format, naming the build option. */
tf_status tf__image_decode(const uint8_t *data, size_t size, int64_t max_pixels, const char *label,
                           tf__image *out);

/* Frees the pixels; the struct is zeroed. NULL is accepted. */
void tf__image_free(tf__image *img);

/* A new image of height x width, pixels not set; TF_ERR_OUT_OF_MEMORY naming
 * the size when it cannot be. */
tf_status tf__image_alloc(int32_t height, int32_t width, tf__image *out);

#endif
