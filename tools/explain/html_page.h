/* html_page.h — an HTML page built in memory and written whole: text
 * escaped for HTML, and the SVG shapes the pictures are drawn with. Every
 * function appends to the page; a failed allocation marks it and the rest
 * is skipped, so callers check once, when writing. */
#ifndef TFENC_HTML_PAGE_H
#define TFENC_HTML_PAGE_H

#include <stddef.h>

typedef struct html_page {
    char *text; /* [len + 1], NUL-terminated */
    size_t len, cap;
    int out_of_memory;
} html_page;

/* printf-style text, not escaped: markup the caller writes itself. */
void page_printf(html_page *p, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* text with & < > " ' escaped: safe as element text and in attribute values. */
void page_escaped(html_page *p, const char *text);

/* Writes the page to path through a temporary file renamed over it, so
 * path is the whole page or as it was: 0, or -1 with "PATH: reason" in err. */
int page_write(const html_page *p, const char *path, char *err, size_t err_size);

void page_free(html_page *p);

/* ---- SVG: coordinates in the picture's own units (its viewBox) ---------- */

/* <svg> of width x height units, scaled to its container's width, with the
 * text alternative a reader or screen reader gets: title (short) and desc. */
void svg_open(html_page *p, const char *id, double width, double height, const char *title,
              const char *desc);
void svg_close(html_page *p);

/* A rectangle filled with a CSS colour ("#3b528b") or, fill NULL, styled by
 * class cls. */
void svg_rect(html_page *p, double x, double y, double w, double h, const char *fill,
              const char *cls);

/* Escaped text at (x, y); anchor "start", "middle" or "end"; cls a CSS
 * class or NULL; rotate degrees about (x, y). */
void svg_text(html_page *p, double x, double y, const char *anchor, const char *cls, double rotate,
              const char *text);

void svg_line(html_page *p, double x1, double y1, double x2, double y2, const char *cls);

/* A polyline through the n points (x[i], y[i]), stroked with class cls. */
void svg_polyline(html_page *p, const double *x, const double *y, int n, const char *cls);

/* A downward arrow from (x, y1) to (x, y2), its head at y2. */
void svg_arrow_down(html_page *p, double x, double y1, double y2);

/* "#rrggbb" of viridis at v in 0..1 (clamped). */
void viridis_hex(double v, char hex[8]);

/* A horizontal viridis colour bar (x, y, w, h) labelled lo and hi. */
void svg_colour_bar(html_page *p, double x, double y, double w, double h, double lo, double hi);

#endif
