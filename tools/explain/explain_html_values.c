/* explain_html_values.c — every tensor of the walkthrough with its values:
 * its exact shape, min/max/mean, and a table of its first rows and
 * columns (one head of a per-head tensor; row sums of the attention
 * weights), the whole shape said when the table is cut. */
#include <stdio.h>
#include <string.h>

#include "explain_html_parts.h"
#include "shape_text.h"

enum { SHOWN_ROWS = 16, SHOWN_COLS = 8 }; /* then "...", then the last column */

/* A tensor seen as a (rows, cols) matrix: one head's of [B, H, T, X]. */
typedef struct matrix {
    const float *data; /* [rows, cols] */
    int rows, cols;
    int per_head, token_rows, token_cols;
} matrix;

static matrix matrix_of(const explain_page *e, const recorded *ev)
{
    const char *d = ev->dim_names;
    matrix m = {.data = ev->data, .rows = 1, .cols = (int)ev->dims[ev->rank - 1]};
    if (!strcmp(d, "B,H,T,d_k") || !strcmp(d, "B,H,T,T")) {
        m.rows = (int)ev->dims[2], m.per_head = 1, m.token_rows = 1;
        m.data = ev->data + (size_t)e->head * m.rows * m.cols; /* head h of [1, H, T, X] */
        m.token_cols = !strcmp(d, "B,H,T,T");
    } else if (ev->rank >= 2 && strcmp(d, "B,D") != 0) {
        m.rows = (int)ev->dims[ev->rank - 2],
        m.token_rows = !strcmp(d, "B,T,D") || !strcmp(d, "B,T,E") || !strcmp(d, "B,T,F");
    }
    return m;
}

/* Column j's index, or its token for a (T, T) matrix. */
static void column_header(html_page *p, const explain_page *e, const matrix *m, int j)
{
    page_printf(p, "<th scope=\"col\">");
    if (m->token_cols && j < e->T)
        page_escaped(p, e->tokens[j]);
    else
        page_printf(p, "%d", j);
    page_printf(p, "</th>");
}

static void row_header(html_page *p, const explain_page *e, const recorded *ev, const matrix *m,
                       int i)
{
    page_printf(p, "<th scope=\"row\">");
    if (m->token_rows && i < e->T)
        page_escaped(p, e->tokens[i]);
    else if (!strcmp(ev->dim_names, "B,D"))
        page_printf(p, "[CLS] pooled");
    else
        page_printf(p, "t=%d", i);
    page_printf(p, "</th>");
}

static int shown_column(const matrix *m, int j)
{
    return j < SHOWN_COLS || j == m->cols - 1;
}

static void value_table(html_page *p, const explain_page *e, const recorded *ev, const matrix *m)
{
    const int sums = !strcmp(short_name(ev), "attn.weights");
    page_printf(p, "<div class=\"scroll\"><table class=\"values\"><tr><th></th>");
    for (int j = 0; j < m->cols; j++) {
        if (j == SHOWN_COLS && m->cols > SHOWN_COLS + 1)
            page_printf(p, "<th>\u2026</th>");
        if (shown_column(m, j))
            column_header(p, e, m, j);
    }
    page_printf(p, "%s</tr>\n", sums ? "<th>row sum</th>" : "");
    for (int i = 0; i < m->rows && i < SHOWN_ROWS; i++) {
        page_printf(p, "<tr>");
        row_header(p, e, ev, m, i);
        double sum = 0;
        for (int j = 0; j < m->cols; j++) {
            const float v = m->data[(size_t)i * m->cols + j];
            sum += v;
            if (j == SHOWN_COLS && m->cols > SHOWN_COLS + 1)
                page_printf(p, "<td>\u2026</td>");
            if (shown_column(m, j))
                page_printf(p, "<td>%.4f</td>", (double)v);
        }
        if (sums)
            page_printf(p, "<td class=\"sum\">%.6f</td>", sum);
        page_printf(p, "</tr>\n");
    }
    page_printf(p, "</table></div>\n");
}

static void tensor_section(html_page *p, const explain_page *e, const recorded *ev)
{
    const shape_text exact = shape_text_of(ev->dims, ev->rank);
    const matrix m = matrix_of(e, ev);
    double lo, hi, mean;
    tensor_stats(ev, &lo, &hi, &mean);
    page_printf(p,
                "<section class=\"tensor\" id=\"t-%s\" data-tensor=\"%s\" data-shape=\"%s\">"
                "<h3><code>%s</code> <span class=\"shape\">%s</span> <span class=\"dims\">"
                "(%s)</span></h3>\n",
                ev->name, ev->name, exact.text, ev->name, exact.text, ev->dim_names);
    page_printf(p,
                "<p class=\"stats\">%zu values: min %.4g, max %.4g, mean %.4g. Shown: ", ev->count,
                lo, hi, mean);
    if (m.per_head)
        page_printf(p, "head %d of %d, ", e->head, (int)ev->dims[1]);
    page_printf(p, "%d of %d rows, %d of %d columns.</p>\n",
                m.rows < SHOWN_ROWS ? m.rows : SHOWN_ROWS, m.rows,
                m.cols <= SHOWN_COLS + 1 ? m.cols : SHOWN_COLS + 1, m.cols);
    value_table(p, e, ev, &m);
    page_printf(p,
                "<p class=\"noprint\"><a href=\"#diagram\">back to the diagram</a></p>"
                "</section>\n");
}

void html_values(html_page *p, const explain_page *e)
{
    for (size_t i = 0; i < e->rec->n; i++)
        if (in_walkthrough(e, &e->rec->events[i]))
            tensor_section(p, e, &e->rec->events[i]);
}
