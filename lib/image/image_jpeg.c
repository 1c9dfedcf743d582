/* image_jpeg.c — a JPEG through libjpeg-turbo, as Pillow 9.4's JpegDecode.c
 * drives it (its defaults: the islow DCT, fancy upsampling), converted as
 * PIL's convert("RGB") converts the mode it opens (JpegImagePlugin.py):
 * grey and YCbCr / RGB as libjpeg's RGB output, CMYK and YCCK as libjpeg's
 * CMYK taken as Adobe-inverted ("CMYK;I") and then Convert.c's cmyk2rgb.
 * libjpeg's errors longjmp back here; its warnings print nothing, and the
 * one that says the data ended early (JWRN_JPEG_EOF) is an error. */
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "alloc.h"
#include "error.h"
#include "image_codecs.h"

#define APP1 (JPEG_APP0 + 1)

/* libjpeg's error manager with the way back and what went wrong. */
typedef struct jpeg_failure {
    struct jpeg_error_mgr mgr;
    jmp_buf back;
    char message[JMSG_LENGTH_MAX];
    int truncated;
} jpeg_failure;

static void on_error(j_common_ptr cinfo)
{
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    f->mgr.format_message(cinfo, f->message);
    longjmp(f->back, 1);
}

/* Warnings (msg_level -1) print nothing; the data running out is fatal. */
static void on_message(j_common_ptr cinfo, int msg_level)
{
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    if (msg_level == -1 && f->mgr.msg_code == JWRN_JPEG_EOF) {
        f->truncated = 1;
        longjmp(f->back, 1);
    }
}

/* Between scans of a progressive JPEG: too many of them is a bomb. */
static void on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    if (cinfo->is_decompressor && d->input_scan_number > TF_IMAGE_MAX_JPEG_SCANS) {
        snprintf(f->message, sizeof f->message, "more than %d scans", TF_IMAGE_MAX_JPEG_SCANS);
        longjmp(f->back, 1);
    }
}

/* The EXIF orientation of the first APP1 "Exif\0\0" segment (PIL keeps the
 * first), or 1. */
static int orientation_of(j_decompress_ptr d)
{
    for (jpeg_saved_marker_ptr m = d->marker_list; m; m = m->next)
        if (m->marker == APP1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0)
            return tf__exif_orientation(m->data, m->data_length);
    return 1;
}

/* (a * b) / 255 rounded as Pillow's MULDIV255. */
static int muldiv255(int a, int b)
{
    const int t = a * b + 128;
    return ((t >> 8) + t) >> 8;
}

/* A row of libjpeg's CMYK [n, 4] (Adobe-inverted) into RGB [n, 3]: PIL's
 * "CMYK;I" unpacking (255 - v) then Convert.c's cmyk2rgb. */
static void cmyk_row_to_rgb(uint8_t *rgb, const uint8_t *cmyk, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const int nk = cmyk[4 * i + 3]; /* 255 - k, k being 255 - the stored value */
        for (int c = 0; c < 3; c++)
            rgb[3 * i + c] = (uint8_t)(nk - muldiv255(255 - cmyk[4 * i + c], nk));
    }
}

/* The decoding proper, between setjmp and the clean-up. */
static void read_pixels(j_decompress_ptr d, tf__image *out, uint8_t *cmyk_row)
{
    while (d->output_scanline < d->output_height) {
        uint8_t *row = out->rgb + (size_t)d->output_scanline * out->width * 3;
        JSAMPROW target = cmyk_row ? cmyk_row : row;
        jpeg_read_scanlines(d, &target, 1);
        if (cmyk_row)
            cmyk_row_to_rgb(row, cmyk_row, (size_t)out->width);
    }
}

/* The width and height of the first SOFn segment, walking the segments
 * from SOI as libjpeg will (libjpeg refuses a side above 65500 with a
 * message that names neither); 0 when none is found. */
static int frame_size(const uint8_t *data, size_t size, unsigned *width, unsigned *height)
{
    size_t at = 2; /* after SOI */
    while (at + 4 <= size && data[at] == 0xff) {
        const uint8_t marker = data[at + 1];
        if (marker == 0xff) { /* fill byte */
            at++;
            continue;
        }
        const size_t len = (size_t)data[at + 2] << 8 | data[at + 3];
        const int sof = marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
            marker != 0xcc;
        if (sof && len >= 7 && at + 9 <= size) {
            *height = (unsigned)data[at + 5] << 8 | data[at + 6];
            *width = (unsigned)data[at + 7] << 8 | data[at + 8];
            return 1;
        }
        if (sof || marker == 0xda) /* a scan before any frame header: libjpeg's to refuse */
            return 0;
        at += 2 + len;
    }
    return 0;
}

tf_status tf__jpeg_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation)
{
    unsigned frame_w, frame_h;
    tf_status checked;
    if (frame_size(data, size, &frame_w, &frame_h) &&
        (checked = tf__image_check_size(frame_w, frame_h, req, TF_IMAGE_JPEG)) != TF_OK)
        return checked;
    struct jpeg_decompress_struct d;
    struct jpeg_progress_mgr progress = {.progress_monitor = on_progress};
    jpeg_failure f;
    memset(&f, 0, sizeof f);
    d.err = jpeg_std_error(&f.mgr);
    f.mgr.error_exit = on_error;
    f.mgr.emit_message = on_message;
    memset(out, 0, sizeof *out);
    /* volatile: set after setjmp and read after the longjmp */
    uint8_t *volatile cmyk_row = NULL;
    volatile tf_status st = TF_OK;
    if (setjmp(f.back)) {
        tf__free(cmyk_row);
        tf__image_free(out);
        jpeg_destroy_decompress(&d);
        if (st != TF_OK)
            return st;
        if (f.truncated)
            return tf__fail(TF_ERR_FORMAT, "%s: truncated JPEG: the data ends before the image",
                            req->label);
        return tf__fail(TF_ERR_FORMAT, "%s: JPEG: %s", req->label, f.message);
    }
    jpeg_create_decompress(&d);
    d.progress = &progress;
    jpeg_mem_src(&d, data, (unsigned long)size);
    jpeg_save_markers(&d, APP1, 0xffff);
    jpeg_read_header(&d, TRUE);
    /* again as libjpeg read it, for a frame header frame_size did not reach */
    if ((st = tf__image_check_size(d.image_width, d.image_height, req, TF_IMAGE_JPEG)) != TF_OK)
        longjmp(f.back, 1);
    const int cmyk = d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK;
    d.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    *orientation = orientation_of(&d);
    jpeg_start_decompress(&d);
    st = tf__image_alloc((int32_t)d.output_height, (int32_t)d.output_width, out);
    if (st == TF_OK && cmyk && !(cmyk_row = tf__malloc((size_t)d.output_width * 4)))
        st = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: a JPEG row of %u pixels", req->label,
                      (unsigned)d.output_width);
    if (st != TF_OK)
        longjmp(f.back, 1);
    read_pixels(&d, out, cmyk_row);
    tf__free(cmyk_row);
    jpeg_destroy_decompress(&d);
    return TF_OK;
}
