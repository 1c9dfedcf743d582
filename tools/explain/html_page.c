/* html_page.c — building an HTML page in memory, SVG shapes, writing it. */
#include "html_page.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colour_scale.h"
#include "file_replace.h"

/* Room for n more bytes and the NUL; 0, or -1 (the page marked). */
static int reserve(html_page *p, size_t n)
{
    if (p->out_of_memory)
        return -1;
    if (p->len + n + 1 <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap : 1 << 16;
    while (cap < p->len + n + 1 && cap < SIZE_MAX / 2)
        cap *= 2;
    char *bigger = cap >= p->len + n + 1 ? realloc(p->text, cap) : NULL;
    if (!bigger) {
        p->out_of_memory = 1;
        return -1;
    }
    p->text = bigger, p->cap = cap;
    return 0;
}

void page_printf(html_page *p, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    const int n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    if (n < 0 || reserve(p, (size_t)n) != 0)
        return;
    va_start(ap, format);
    vsnprintf(p->text + p->len, (size_t)n + 1, format, ap);
    va_end(ap);
    p->len += (size_t)n;
}

void page_escaped(html_page *p, const char *text)
{
    for (const char *c = text; *c; c++) {
        const char *entity = *c == '&' ? "&amp;"
            : *c == '<'                ? "&lt;"
            : *c == '>'                ? "&gt;"
            : *c == '"'                ? "&quot;"
            : *c == '\''               ? "&#39;"
                                       : NULL;
        if (entity)
            page_printf(p, "%s", entity);
        else if (reserve(p, 1) == 0)
            p->text[p->len++] = *c, p->text[p->len] = '\0';
    }
}

int page_write(const html_page *p, const char *path, char *err, size_t err_size)
{
    if (p->out_of_memory) {
        snprintf(err, err_size, "%s: out of memory for the page", path);
        return -1;
    }
    return tf__file_replace(path, p->text, p->len, err, err_size);
}

void page_free(html_page *p)
{
    free(p->text);
    *p = (html_page){0};
}

/* ---- SVG -------------------------------------------------------------------- */

void svg_open(html_page *p, const char *id, double width, double height, const char *title,
              const char *desc)
{
    page_printf(p,
                "<svg id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" role=\"img\" "
                "aria-labelledby=\"%s-title %s-desc\">"
                "<title id=\"%s-title\">",
                id, width, height, width, id, id, id);
    page_escaped(p, title);
    page_printf(p, "</title><desc id=\"%s-desc\">", id);
    page_escaped(p, desc);
    page_printf(p, "</desc>\n");
}

void svg_close(html_page *p)
{
    page_printf(p, "</svg>\n");
}

void svg_rect(html_page *p, double x, double y, double w, double h, const char *fill,
              const char *cls)
{
    page_printf(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x, y, w, h);
    if (fill)
        page_printf(p, " fill=\"%s\"", fill);
    if (cls)
        page_printf(p, " class=\"%s\"", cls);
    page_printf(p, "/>");
}

void svg_text(html_page *p, double x, double y, const char *anchor, const char *cls, double rotate,
              const char *text)
{
    page_printf(p, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor);
    if (cls)
        page_printf(p, " class=\"%s\"", cls);
    if (rotate != 0)
        page_printf(p, " transform=\"rotate(%.0f %.1f %.1f)\"", rotate, x, y);
    page_printf(p, ">");
    page_escaped(p, text);
    page_printf(p, "</text>");
}

void svg_line(html_page *p, double x1, double y1, double x2, double y2, const char *cls)
{
    page_printf(p, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>", x1, y1,
                x2, y2, cls);
}

void svg_polyline(html_page *p, const double *x, const double *y, int n, const char *cls)
{
    page_printf(p, "<polyline class=\"%s\" points=\"", cls);
    for (int i = 0; i < n; i++)
        page_printf(p, "%s%.1f,%.1f", i ? " " : "", x[i], y[i]);
    page_printf(p, "\"/>\n");
}

void svg_arrow_down(html_page *p, double x, double y1, double y2)
{
    svg_line(p, x, y1, x, y2 - 6, "arrow");
    page_printf(p, "<path class=\"arrowhead\" d=\"M%.1f %.1fl-5 -8h10z\"/>", x, y2);
}

void viridis_hex(double v, char hex[8])
{
    double rgb[3];
    viridis(v, rgb);
    snprintf(hex, 8, "#%02x%02x%02x", (unsigned)(rgb[0] * 255 + 0.5) & 255,
             (unsigned)(rgb[1] * 255 + 0.5) & 255, (unsigned)(rgb[2] * 255 + 0.5) & 255);
}

void svg_colour_bar(html_page *p, double x, double y, double w, double h, double lo, double hi)
{
    enum { STEPS = 32 };
    char hex[8], label[32];
    for (int k = 0; k < STEPS; k++) {
        viridis_hex(k / (STEPS - 1.0), hex);
        svg_rect(p, x + k * w / STEPS, y, w / STEPS + 0.3, h, hex, NULL);
    }
    snprintf(label, sizeof label, "%.2f", lo);
    svg_text(p, x, y + h + 12, "start", "small", 0, label);
    snprintf(label, sizeof label, "%.2f", hi);
    svg_text(p, x + w, y + h + 12, "end", "small", 0, label);
}
