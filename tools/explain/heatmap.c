/* heatmap.c — `tfenc explain --heatmap FILE.png`: the attention weights of
 * every head of one layer as a grid of heatmaps with token labels and a
 * colour scale, drawn with cairo.
 *
 * Layout (deterministic, so tests can check the size): cell = 28 px when
 * T <= 16, else max(4, 448 / T); a panel is 80 + T*cell + 16 px wide and
 * 24 + 80 + T*cell + 16 px high; min(H, 4) panels per row; the image adds
 * 20 px of width, a 40 px title and a 70 px colour bar. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "colour_scale.h"
#include "heatmap.h"

#ifdef TFENC_HAVE_CAIRO
#include <cairo.h>

enum { LABEL = 80, GAP = 16, HEAD_TITLE = 24, TITLE = 40, BAR = 70, MAX_COLS = 4 };

static int cell_size(int T)
{
    if (T <= 16)
        return 28;
    const int c = 448 / T;
    return c > 4 ? c : 4;
}

static void text_at(cairo_t *cr, double x, double y, const char *s, double size)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* One head's (T, T) weights at (x0, y0): labels, cells, values. */
static void draw_panel(cairo_t *cr, double x0, double y0, const float *w, int T, int head,
                       const char (*labels)[16])
{
    const int cell = cell_size(T);
    char title[32];
    snprintf(title, sizeof title, "head %d", head);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, x0 + LABEL, y0 + 16, title, 13);
    const double top = y0 + HEAD_TITLE + LABEL;
    const double font = cell >= 12 ? 10 : cell - 2;
    for (int i = 0; i < T; i++) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        text_at(cr, x0 + 4, top + i * cell + cell / 2.0 + font / 3, labels[i], font);
        cairo_save(cr); /* column labels, rotated */
        cairo_move_to(cr, x0 + LABEL + i * cell + cell / 2.0 + font / 3, top - 4);
        cairo_rotate(cr, -1.5707963267948966); /* -pi/2 */
        cairo_set_font_size(cr, font);
        cairo_show_text(cr, labels[i]);
        cairo_restore(cr);
        for (int j = 0; j < T; j++) {
            const double v = w[i * T + j];
            double rgb[3];
            viridis(v, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, x0 + LABEL + j * cell, top + i * cell, cell, cell);
            cairo_fill(cr);
            if (cell >= 24) {
                char value[8];
                snprintf(value, sizeof value, "%.2f", v);
                cairo_set_source_rgb(cr, v > 0.6 ? 0 : 1, v > 0.6 ? 0 : 1, v > 0.6 ? 0 : 1);
                text_at(cr, x0 + LABEL + j * cell + 2, top + i * cell + cell / 2.0 + 3, value, 8);
            }
        }
    }
}

static void draw_colour_bar(cairo_t *cr, double x0, double y0, double width)
{
    for (int k = 0; k < (int)width; k++) {
        double rgb[3];
        viridis(k / (width - 1), rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, x0 + k, y0, 1, 16);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int k = 0; k <= 4; k++) {
        char tick[8];
        snprintf(tick, sizeof tick, "%.2f", k / 4.0);
        text_at(cr, x0 + k * (width - 1) / 4 - 10, y0 + 30, tick, 10);
    }
    text_at(cr, x0 + width + 12, y0 + 13, "attention weight", 11);
}

int heatmap_size(int T, int H, int *width, int *height)
{
    const int cols = H < MAX_COLS ? H : MAX_COLS, rows = (H + cols - 1) / cols;
    const int panel_w = LABEL + T * cell_size(T) + GAP;
    const int panel_h = HEAD_TITLE + LABEL + T * cell_size(T) + GAP;
    *width = cols * panel_w + 20;
    *height = TITLE + rows * panel_h + BAR;
    return 0;
}

int heatmap_write(const char *path, const recorded *weights, const char (*labels)[16], int layer,
                  char *err, size_t err_size)
{
    const int H = (int)weights->dims[1], T = (int)weights->dims[2];
    int width, height;
    heatmap_size(T, H, &width, &height);
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(surface);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    char title[96];
    snprintf(title, sizeof title, "layers.%d.attn.weights: row = query, column = key", layer);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text_at(cr, 10, 26, title, 16);
    const int cols = H < MAX_COLS ? H : MAX_COLS, cell = cell_size(T);
    for (int h = 0; h < H; h++) {
        const int column = h % cols, row = h / cols; /* of the grid of panels */
        draw_panel(cr, 10 + column * (LABEL + T * cell + GAP),
                   TITLE + row * (HEAD_TITLE + LABEL + T * cell + GAP),
                   weights->data + (size_t)h * T * T, T, h, labels);
    }
    draw_colour_bar(cr, 10 + LABEL, height - BAR + 14, 240);
    cairo_destroy(cr);
    const cairo_status_t st = cairo_surface_write_to_png(surface, path);
    cairo_surface_destroy(surface);
    if (st != CAIRO_STATUS_SUCCESS) {
        snprintf(err, err_size, "%s: %s", path, cairo_status_to_string(st));
        return -1;
    }
    return 0;
}

#else

int heatmap_write(const char *path, const recorded *weights, const char (*labels)[16], int layer,
                  char *err, size_t err_size)
{
    (void)weights, (void)labels, (void)layer;
    snprintf(err, err_size, "%s: this tfenc was built without cairo (Debian libcairo2-dev)", path);
    return -1;
}

int heatmap_size(int T, int H, int *width, int *height)
{
    (void)T, (void)H;
    *width = *height = 0;
    return -1;
}

#endif
