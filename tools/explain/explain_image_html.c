/* explain_image_html.c — `tfenc explain --image FILE --html PAGE.html`:
 * one self-contained page (inline SVG and CSS, the image a data: URI PNG,
 * no script, nothing fetched): the preprocessing, the image the tower reads
 * with its patch grid, the embedding's shapes, every layer's and head's
 * attention over the patches drawn on the image, the attention rollout, and
 * every traced tensor's name and shape. Each heatmap's values are in its
 * figure's data-values (patches row by row), which the tests read. */
#include <stdio.h>
#include <stdlib.h>

#include "explain_image.h"
#include "float_text.h"
#include "html_page.h"
#include "png_uri.h"

/* The side, in CSS pixels, the image is drawn at at least (a small tower's
 * 32 x 32 image scaled up, its pixels kept square). */
#define SHOWN_SIDE 256
#define HEAT_OPACITY 0.65
/* The largest decoded image drawn whole (width x height); a larger one is
 * named, not drawn, so that the page stays small. */
#define PHOTO_MAX_PIXELS (1 << 20)
#define PHOTO_SIDE 320 /* its width on the page, in CSS pixels */

static const char style[] =
    ":root{color-scheme:light}"
    "*{box-sizing:border-box}"
    "body{font:15px/1.45 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;"
    "max-width:1200px;padding:0 12px 40px}"
    "h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.2em;margin-top:1.6em;"
    "border-bottom:1px solid #ccc}h3{font-size:1em;margin:1em 0 .3em}"
    "code{font:13px ui-monospace,monospace;overflow-wrap:anywhere}"
    "svg{display:block;max-width:100%;height:auto}"
    "svg image{image-rendering:pixelated}"
    "figure{margin:0}figcaption,.note{font-size:13px;color:#444}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;font:12px ui-monospace,monospace}"
    "th,td{padding:2px 6px;text-align:left;border-bottom:1px solid #e4e4e4;white-space:nowrap}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}"
    ".patch{fill:none;stroke:#fff;stroke-opacity:.8}"
    ".crop{fill:none;stroke:#ff0;stroke-dasharray:4 2}"
    "@media print{body{max-width:none;padding:0}section,figure,tr{break-inside:avoid}}";

/* <svg> of the H x W image at scale, the image drawn first: from uri (the
 * page's one copy, #shown-image), or with uri NULL that copy again. */
static void image_svg_open(html_page *p, const image_view *v, const char *uri, const char *id,
                           const char *title)
{
    const int scale = v->W >= SHOWN_SIDE ? 1 : (SHOWN_SIDE + v->W - 1) / v->W;
    page_printf(p,
                "<svg id=\"%s\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\" "
                "aria-label=\"",
                id, v->W, v->H, v->W * scale);
    page_escaped(p, title);
    if (uri)
        page_printf(p,
                    "\"><image id=\"shown-image\" x=\"0\" y=\"0\" width=\"%d\" "
                    "height=\"%d\" preserveAspectRatio=\"none\" href=\"%s\"/>",
                    v->W, v->H, uri);
    else
        page_printf(p, "\"><use href=\"#shown-image\"/>");
}

/* The P values row by row, as a figure's data-values. */
static void data_values(html_page *p, const float *values, int n)
{
    page_printf(p, " data-values=\"");
    for (int i = 0; i < n; i++) {
        char number[TF_FLOAT_TEXT_MAX];
        tf__float_text(number, values[i]);
        page_printf(p, i ? " %s" : "%s", number);
    }
    page_printf(p, "\"");
}

/* The image with each patch coloured by its value (viridis of value / the
 * largest, translucent), in a figure with the values. */
static void heatmap_figure(html_page *p, const image_view *v, const char *id,
                           const char *attributes, const float *values, const char *caption)
{
    float hi = 0;
    int at = 0;
    for (int i = 0; i < v->P; i++)
        if (values[i] > hi)
            hi = values[i], at = i;
    page_printf(p, "<figure id=\"%s\" %s", id, attributes);
    data_values(p, values, v->P);
    page_printf(p, ">");
    char svg_id[80];
    snprintf(svg_id, sizeof svg_id, "%s-svg", id);
    image_svg_open(p, v, NULL, svg_id, caption);
    for (int i = 0; i < v->P; i++) {
        char hex[8];
        viridis_hex(hi > 0 ? values[i] / hi : 0, hex);
        page_printf(p,
                    "<rect class=\"heat\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"%s\" fill-opacity=\"%.2f\"><title>patch %d (row %d, column %d): "
                    "%.4f</title></rect>",
                    i % v->cols * v->p, i / v->cols * v->p, v->p, v->p, hex, HEAT_OPACITY, i,
                    i / v->cols, i % v->cols, (double)values[i]);
    }
    svg_close(p);
    page_printf(p, "<figcaption>");
    page_escaped(p, caption);
    page_printf(p,
                ": colour from 0 (dark) to the largest, %.4f, at patch %d (row %d, column %d)"
                "</figcaption></figure>\n",
                (double)hi, at, at / v->cols, at % v->cols);
}

static void summary(html_page *p, const image_view *v)
{
    page_printf(p,
                "<h1>A vision Transformer, step by step</h1>\n<p>libtfenc %s ran the model "
                "<code>",
                tf_version_string());
    page_escaped(p, v->model);
    page_printf(p,
                "</code> (%s, %d values an image; %d layers, %d heads, D %d) on the image "
                "<code>",
                tf_pipeline_kind_name(v->kind), (int)v->dim, v->layers, v->heads, v->D);
    page_escaped(p, v->image);
    page_printf(p,
                "</code>. Every shape below is a tensor the library traced in this forward "
                "pass.</p>\n");
}

/* The region of the decoded image the crop keeps, in its pixels: x, y,
 * width, height (the resize undone). */
static void crop_region(const image_view *v, double box[4])
{
    const recorded *d = v->decoded, *r = v->resized ? v->resized : v->decoded;
    const double sy = (double)d->dims[0] / (double)r->dims[0];
    const double sx = (double)d->dims[1] / (double)r->dims[1];
    box[0] = v->crop_left * sx, box[1] = v->crop_top * sy;
    box[2] = v->W * sx, box[3] = v->H * sy;
}

/* The decoded image with the region the tower reads outlined, or a note
 * when it is larger than PHOTO_MAX_PIXELS. 0, or -1 with err set. */
static int decoded_figure(html_page *p, const image_view *v, char *err, size_t err_size)
{
    const recorded *d = v->decoded; /* [H0, W0, 3] */
    const int h = (int)d->dims[0], w = (int)d->dims[1];
    if ((int64_t)h * w > PHOTO_MAX_PIXELS) {
        page_printf(p,
                    "<p class=\"note\">The decoded image (%d \u00d7 %d) is larger than %d "
                    "pixels and is not drawn here.</p>\n",
                    w, h, PHOTO_MAX_PIXELS);
        return 0;
    }
    uint8_t *rgb = malloc(d->count); /* [H0, W0, 3] */
    char *uri = NULL;
    for (size_t i = 0; rgb && i < d->count; i++)
        rgb[i] = (uint8_t)d->data[i];
    const int rc = rgb ? png_data_uri(rgb, h, w, &uri, err, err_size)
                       : (snprintf(err, err_size, "out of memory"), -1);
    if (rc == 0) {
        double box[4];
        crop_region(v, box);
        page_printf(p,
                    "<figure id=\"decoded\"><svg id=\"decoded-svg\" viewBox=\"0 0 %d %d\" "
                    "width=\"%d\" role=\"img\" aria-label=\"the image as decoded, the region "
                    "the tower reads outlined\"><image x=\"0\" y=\"0\" width=\"%d\" "
                    "height=\"%d\" preserveAspectRatio=\"none\" href=\"%s\"/>"
                    "<rect class=\"crop\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                    "height=\"%.2f\" stroke-width=\"%.2f\"/></svg><figcaption>The file as "
                    "decoded, %d \u00d7 %d; outlined, the region the tower reads.</figcaption>"
                    "</figure>\n",
                    w, h, PHOTO_SIDE, w, h, uri, box[0], box[1], box[2], box[3],
                    (double)w / PHOTO_SIDE * 2, w, h);
    }
    free(uri);
    free(rgb);
    return rc;
}

static void preprocessing(html_page *p, const image_view *v)
{
    const recorded *d = v->decoded, *r = v->resized, *before = r ? r : d;
    page_printf(p,
                "<section id=\"preprocessing\"><h2>Preprocessing</h2>\n<ol>"
                "<li>decoded: %lld \u00d7 %lld pixels, <code>image.decoded [%lld, %lld, 3]"
                "</code></li>",
                (long long)d->dims[1], (long long)d->dims[0], (long long)d->dims[0],
                (long long)d->dims[1]);
    if (r)
        page_printf(p,
                    "<li>resized to %lld \u00d7 %lld: <code>image.resized [%lld, %lld, 3]"
                    "</code></li>",
                    (long long)r->dims[1], (long long)r->dims[0], (long long)r->dims[0],
                    (long long)r->dims[1]);
    if (before->dims[0] != v->H || before->dims[1] != v->W)
        page_printf(p, "<li>center-cropped to %d \u00d7 %d</li>", v->W, v->H);
    page_printf(p,
                "<li>rescaled and normalised, channels first: <code>pixel_values [1, 3, %d, "
                "%d]</code>, the tensor [3, %d, %d] the tower reads</li></ol>\n",
                v->H, v->W, v->H, v->W);
}

static void patch_grid(html_page *p, const image_view *v, const char *uri)
{
    page_printf(p,
                "<section id=\"patches\"><h2>Patches and their embedding</h2>\n"
                "<figure id=\"patch-grid\" data-rows=\"%d\" data-cols=\"%d\" data-patch=\"%d\" "
                "data-patches=\"%d\">",
                v->rows, v->cols, v->p, v->P);
    image_svg_open(p, v, uri, "patch-grid-svg", "the image the tower reads, its patch grid");
    for (int i = 0; i < v->P; i++)
        page_printf(p,
                    "<rect class=\"patch\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "stroke-width=\"%.3f\"><title>patch %d</title></rect>",
                    i % v->cols * v->p, i / v->cols * v->p, v->p, v->p, v->W / 256.0 + 0.05, i);
    svg_close(p);
    page_printf(p,
                "<figcaption>The image as the tower reads it (before rescale and normalise), "
                "cut into %d rows \u00d7 %d columns of %d \u00d7 %d pixels: N_patches = %d."
                "</figcaption></figure>\n<ul><li>patch embedding: a Conv2d of kernel = stride "
                "= %d, (%d, %d) \u00b7 W\u1d40 + b \u2192 <code>embed.patches [1, %d, %d]</code> "
                "(N_patches, D)</li>",
                v->rows, v->cols, v->p, v->p, v->P, v->p, v->P, 3 * v->p * v->p, v->P, v->D);
    if (v->cls)
        page_printf(p,
                    "<li>class token: <code>embed.class_token [%d]</code>, put before the "
                    "patches: T = %d + 1 = %d tokens</li>",
                    v->D, v->P, v->T);
    else
        page_printf(p,
                    "<li>class token: none (this tower has none): T = N_patches = %d; the "
                    "attention-pooling head's probe reads every token at the end</li>",
                    v->P);
    page_printf(p,
                "<li>positions: <code>embed.position [%d, %d]</code>, one learned row per "
                "token, added</li></ul></section>\n",
                v->T, v->D);
}

static void attention_maps(html_page *p, const image_view *v)
{
    page_printf(p, "<section id=\"attention\"><h2>Attention over the image</h2>\n<p>%s</p>\n",
                v->cls ? "Each head's attention from the class token (its row of "
                         "<code>layers.l.attn.weights</code>) to every patch."
                       : "This tower has no class token: each layer's map is the attention "
                         "each patch receives, averaged over the queries (the column means "
                         "of <code>layers.l.attn.weights</code>); the attention-pooling "
                         "head's probe follows, its row of <code>head.attn.weights</code>.");
    char id[64], attributes[96], caption[128];
    for (int l = 0; l < v->layers; l++) {
        page_printf(p, "<h3>Layer %d</h3><div class=\"grid\">\n", l);
        for (int h = 0; h < v->heads; h++) {
            snprintf(id, sizeof id, "attn-%d-%d", l, h);
            snprintf(attributes, sizeof attributes,
                     "class=\"attn\" data-layer=\"%d\" data-head=\"%d\"", l, h);
            snprintf(caption, sizeof caption, "layer %d, head %d", l, h);
            heatmap_figure(p, v, id, attributes, v->attention + ((size_t)l * v->heads + h) * v->P,
                           caption);
        }
        page_printf(p, "</div>\n");
    }
    if (v->probe) {
        page_printf(p, "<h3>The attention-pooling head's probe</h3><div class=\"grid\">\n");
        for (int h = 0; h < v->heads; h++) {
            snprintf(id, sizeof id, "probe-%d", h);
            snprintf(attributes, sizeof attributes, "class=\"probe\" data-head=\"%d\"", h);
            snprintf(caption, sizeof caption, "the probe, head %d", h);
            heatmap_figure(p, v, id, attributes, v->probe->data + (size_t)h * v->T, caption);
        }
        page_printf(p, "</div>\n");
    }
    page_printf(p, "</section>\n");
}

static void rollout(html_page *p, const image_view *v)
{
    page_printf(p,
                "<section id=\"rollout-section\"><h2>Attention rollout</h2>\n<p>Abnar &amp; "
                "Zuidema (2020): each layer's heads averaged, the identity added for the "
                "residual, rows renormalised, the %d layers multiplied; shown: %s.</p>"
                "<div class=\"grid\">",
                v->layers,
                v->cls ? "the class token's row over the patches"
                       : "the probe's attention (heads averaged) times the rollout");
    heatmap_figure(p, v, "rollout", "class=\"rollout\"", v->rollout, "rollout");
    page_printf(p, "</div></section>\n");
}

static void tensor_table(html_page *p, const image_view *v)
{
    page_printf(p,
                "<section id=\"tensors\"><h2>Every traced tensor</h2>\n<div class=\"scroll\">"
                "<table><tr><th>name</th><th>shape</th><th>dimensions</th></tr>\n");
    for (size_t i = 0; i < v->rec->n; i++) {
        const recorded *e = &v->rec->events[i];
        page_printf(p, "<tr class=\"traced\"><td><code>");
        page_escaped(p, e->name);
        page_printf(p, "</code></td><td>[");
        for (int k = 0; k < e->rank; k++)
            page_printf(p, k ? ", %lld" : "%lld", (long long)e->dims[k]);
        page_printf(p, "]</td><td>");
        page_escaped(p, e->dim_names);
        page_printf(p, "</td></tr>\n");
    }
    page_printf(p, "</table></div></section>\n");
}

int explain_image_html_write(const char *path, const image_view *v, char *err, size_t err_size)
{
    char *uri;
    if (png_data_uri(v->shown, v->H, v->W, &uri, err, err_size) != 0)
        return -1;
    html_page p = {0};
    page_printf(&p,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<title>libtfenc %s: a vision Transformer, step by step</title>"
                "<style>%s</style></head>\n<body>\n",
                tf_version_string(), style);
    summary(&p, v);
    preprocessing(&p, v);
    const int drawn = decoded_figure(&p, v, err, err_size);
    page_printf(&p, "</section>\n");
    patch_grid(&p, v, uri);
    attention_maps(&p, v);
    rollout(&p, v);
    tensor_table(&p, v);
    page_printf(&p,
                "<footer class=\"note\">Made by <code>tfenc explain --image --html</code> "
                "from the library's trace of one forward call; one file, nothing fetched."
                "</footer>\n</body></html>\n");
    free(uri);
    const int rc = drawn == 0 ? page_write(&p, path, err, err_size) : -1;
    page_free(&p);
    return rc;
}
