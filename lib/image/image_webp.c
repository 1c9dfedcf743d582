/* image_webp.c — a WebP through libwebp's WebPAnimDecoder, which Pillow 9.4
 * decodes every WebP with (WebPImagePlugin.py, _webp.c): the first frame
 * in RGBA on a canvas cleared to transparent black, the alpha then dropped
 * as convert("RGB") drops it. The container is parsed first (libwebp's
 * demuxer), the canvas size checked, then the frame decoded. libwebp
 * prints nothing. */
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>

#include "error.h"
#include "image_codecs.h"

/* The EXIF chunk's orientation, or 1. */
static int orientation_of(const WebPDemuxer *demux)
{
    WebPChunkIterator chunk;
    if (!WebPDemuxGetChunk(demux, "EXIF", 1, &chunk))
        return 1;
    const int orientation = tf__exif_orientation(chunk.chunk.bytes, chunk.chunk.size);
    WebPDemuxReleaseChunkIterator(&chunk);
    return orientation;
}

/* The container parsed whole (TF_ERR_FORMAT when it is not, or ends early),
 * its canvas checked against the limit, and its orientation. */
static tf_status read_container(const WebPData *webp, const tf__image_request *req,
                                int *orientation)
{
    WebPDemuxState state;
    WebPDemuxer *demux = WebPDemuxPartial(webp, &state);
    if (!demux || state != WEBP_DEMUX_DONE) {
        WebPDemuxDelete(demux);
        return state == WEBP_DEMUX_PARSE_ERROR || !demux
            ? tf__fail(TF_ERR_FORMAT, "%s: WebP: not a valid WebP container", req->label)
            : tf__fail(TF_ERR_FORMAT, "%s: truncated WebP: the data ends before the image",
                       req->label);
    }
    const tf_status st = tf__image_check_size(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH),
                                              WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT), req,
                                              TF_IMAGE_WEBP);
    *orientation = orientation_of(demux);
    WebPDemuxDelete(demux);
    return st;
}

tf_status tf__webp_decode(const uint8_t *data, size_t size, const tf__image_request *req,
                          tf__image *out, int *orientation)
{
    memset(out, 0, sizeof *out);
    const WebPData webp = {data, size};
    tf_status st = read_container(&webp, req, orientation);
    if (st != TF_OK)
        return st;
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options))
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: WebP: libwebp's demuxer ABI differs from its "
                        "headers'",
                        req->label);
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&webp, &options);
    WebPAnimInfo info;
    uint8_t *canvas; /* [height, width, 4], the decoder's */
    int timestamp;
    if (!dec || !WebPAnimDecoderGetInfo(dec, &info) ||
        !WebPAnimDecoderGetNext(dec, &canvas, &timestamp)) {
        WebPAnimDecoderDelete(dec);
        return tf__fail(TF_ERR_FORMAT, "%s: WebP: the first frame cannot be decoded", req->label);
    }
    st = tf__image_alloc((int32_t)info.canvas_height, (int32_t)info.canvas_width, out);
    if (st == TF_OK) {
        const size_t n = (size_t)out->height * (size_t)out->width;
        for (size_t i = 0; i < n; i++)
            memcpy(out->rgb + 3 * i, canvas + 4 * i, 3);
    }
    WebPAnimDecoderDelete(dec);
    return st;
}
