/* image_orient.c — the EXIF Orientation tag, read as PIL's Exif.load reads
 * it (PIL/Image.py, Exif; PIL/TiffImagePlugin.py, ImageFileDirectory_v2),
 * and applied as PIL.ImageOps.exif_transpose applies it. */
#include <string.h>

#include "alloc.h"
#include "image_codecs.h"

#define ORIENTATION_TAG 0x0112
#define TIFF_BYTE 1
#define TIFF_SHORT 3
#define TIFF_LONG 4
#define IFD_ENTRY_BYTES 12

/* An unsigned integer of n bytes (2 or 4) at p, in the TIFF's byte order. */
static uint32_t read_uint(const uint8_t *p, int n, int big_endian)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint32_t)p[big_endian ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

int tf__exif_orientation(const uint8_t *exif, size_t size)
{
    if (size >= 6 && memcmp(exif, "Exif\0\0", 6) == 0) {
        exif += 6;
        size -= 6;
    }
    if (size < 8)
        return 1;
    int big_endian;
    if (memcmp(exif, "II*\0", 4) == 0)
        big_endian = 0;
    else if (memcmp(exif, "MM\0*", 4) == 0)
        big_endian = 1;
    else
        return 1;
    const uint32_t ifd = read_uint(exif + 4, 4, big_endian);
    if (ifd > size - 2)
        return 1;
    const uint32_t entries = read_uint(exif + ifd, 2, big_endian);
    /* entries cut short by the end of the data end the directory (PIL warns, keeps the rest) */
    for (uint32_t i = 0; i < entries; i++) {
        const size_t at = (size_t)ifd + 2 + (size_t)i * IFD_ENTRY_BYTES;
        if (at + IFD_ENTRY_BYTES > size)
            break;
        const uint8_t *e = exif + at;
        if (read_uint(e, 2, big_endian) != ORIENTATION_TAG || read_uint(e + 4, 4, big_endian) != 1)
            continue;
        switch (read_uint(e + 2, 2, big_endian)) {
        case TIFF_BYTE:
            return e[8];
        case TIFF_SHORT:
            return (int)read_uint(e + 8, 2, big_endian);
        case TIFF_LONG: {
            const uint32_t v = read_uint(e + 8, 4, big_endian);
            return v <= 8 ? (int)v : 1;
        }
        default:
            return 1;
        }
    }
    return 1;
}

/* Where output pixel (y, x) comes from: sy = y0 + yy * y + yx * x, likewise
 * sx; for an input of H rows and W columns. */
typedef struct source_map {
    int swaps; /* the output is W x H */
    long y0, yy, yx, x0, xy, xx;
} source_map;

static int map_of(int orientation, long H, long W, source_map *m)
{
    const source_map maps[9] = {
        [2] = {0, 0, 1, 0, W - 1, 0, -1},      /* FLIP_LEFT_RIGHT */
        [3] = {0, H - 1, -1, 0, W - 1, 0, -1}, /* ROTATE_180 */
        [4] = {0, H - 1, -1, 0, 0, 0, 1},      /* FLIP_TOP_BOTTOM */
        [5] = {1, 0, 0, 1, 0, 1, 0},           /* TRANSPOSE */
        [6] = {1, H - 1, 0, -1, 0, 1, 0},      /* ROTATE_270: a quarter turn clockwise */
        [7] = {1, H - 1, 0, -1, W - 1, -1, 0}, /* TRANSVERSE */
        [8] = {1, 0, 0, 1, W - 1, -1, 0},      /* ROTATE_90: a quarter turn anticlockwise */
    };
    if (orientation < 2 || orientation > 8)
        return 0;
    *m = maps[orientation];
    return 1;
}

tf_status tf__image_orient(tf__image *img, int orientation)
{
    source_map m;
    if (!map_of(orientation, img->height, img->width, &m))
        return TF_OK;
    tf__image out;
    const tf_status st = m.swaps ? tf__image_alloc(img->width, img->height, &out)
                                 : tf__image_alloc(img->height, img->width, &out);
    if (st != TF_OK)
        return st;
    for (long y = 0; y < out.height; y++)
        for (long x = 0; x < out.width; x++) {
            const long sy = m.y0 + m.yy * y + m.yx * x, sx = m.x0 + m.xy * y + m.xx * x;
            memcpy(out.rgb + 3 * (y * out.width + x), img->rgb + 3 * (sy * img->width + sx), 3);
        }
    tf__image_free(img);
    *img = out;
    return TF_OK;
}
