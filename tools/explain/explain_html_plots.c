/* explain_html_plots.c — the pictures of the --html page, where numbers
 * are hard to read: each head's attention weights as a heatmap with token
 * labels and a viridis scale; the position table as an image and a few of
 * its columns against position; LayerNorm's per-token mean and std before
 * and after; the FFN activation's histogram. Every picture is an SVG with
 * a title and a description. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "explain_html_parts.h"
#include "utf8.h"

/* Okabe and Ito's colour-blind-safe palette, for the curves. */
static const char *const curve_colours[4] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7"};

/* ---- Attention heatmaps ---------------------------------------------------------- */

enum { HEAT_LABEL = 64, HEAT_LABEL_BYTES = 9 };

static double heat_cell(int T)
{
    return T <= 12 ? 28 : T <= 96 ? 336.0 / T : 3.5;
}

/* A token cut to fit a heatmap label. */
static void short_label(const char *token, char *buf, size_t size)
{
    snprintf(buf, size, "%.*s", tf__utf8_prefix(token, HEAT_LABEL_BYTES), token);
}

/* w is (T, T): row = query, column = key; colours span 0..top. */
static void heat_cells(html_page *p, const float *w, int T, double cell, double top)
{
    char hex[8], value[16];
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
            const double v = w[i * T + j], shade = v / top;
            viridis_hex(shade, hex);
            /* a hair wider than the cell: no seams between cells */
            svg_rect(p, HEAT_LABEL + j * cell, HEAT_LABEL + i * cell, cell + 0.2, cell + 0.2, hex,
                     NULL);
            if (cell < 28)
                continue;
            snprintf(value, sizeof value, "%.2f", v);
            svg_text(p, HEAT_LABEL + (j + 0.5) * cell, HEAT_LABEL + (i + 0.5) * cell + 3, "middle",
                     shade > 0.6 ? "cell dark" : "cell light", 0, value);
        }
}

/* Token labels along both edges: every token while they fit, else every
 * k-th. */
static void heat_labels(html_page *p, const explain_page *e, double cell)
{
    char label[HEAT_LABEL_BYTES + 1];
    const int every = cell >= 10 ? 1 : (int)ceil(10 / cell);
    for (int t = 0; t < e->T; t += every) {
        short_label(e->tokens[t], label, sizeof label);
        svg_text(p, HEAT_LABEL - 4, HEAT_LABEL + (t + 0.5) * cell + 3, "end", "small", 0, label);
        svg_text(p, HEAT_LABEL + (t + 0.5) * cell + 3, HEAT_LABEL - 4, "start", "small", -90,
                 label);
    }
}

static void heatmap(html_page *p, const explain_page *e, const float *w, int head, double top)
{
    const int T = e->T;
    const double cell = heat_cell(T), size = HEAT_LABEL + T * cell + 4;
    char id[32], title[64], desc[200];
    snprintf(id, sizeof id, "heatmap-%d", head);
    snprintf(title, sizeof title, "Attention weights of head %d, layer %d", head, e->layer);
    snprintf(desc, sizeof desc,
             "A %d by %d grid: row i is query token i, column j key token j; "
             "yellow is the layer's largest weight (%.3f), dark purple 0.",
             T, T, top);
    page_printf(p, "<figure class=\"heat\">");
    svg_open(p, id, size, size, title, desc);
    heat_labels(p, e, cell);
    heat_cells(p, w, T, cell, top);
    svg_close(p);
    page_printf(p, "<figcaption>head %d</figcaption></figure>\n", head);
}

void html_heatmaps(html_page *p, const explain_page *e)
{
    const recorded *weights = layer_event(e, "attn.weights"); /* [1, H, T, T] */
    if (!weights)
        return;
    const int H = (int)weights->dims[1], T = e->T;
    double lo, top, mean;
    tensor_stats(weights, &lo, &top, &mean);
    top = top > 0 ? top : 1; /* one scale for every head, so they compare */
    page_printf(p,
                "<section id=\"attention\"><h2>Attention weights, layer %d</h2>\n"
                "<p>Each head's softmax(Q K\u1d40 / \u221ad_k) as a %d \u00d7 %d heatmap: "
                "row = the query token, column = the key it attends to; every row sums "
                "to 1. One colour scale for all heads, 0 to the layer's largest weight.</p>\n"
                "<div class=\"grid\" id=\"heatmaps\">\n",
                e->layer, T, T);
    for (int h = 0; h < H; h++)
        heatmap(p, e, weights->data + (size_t)h * T * T, h, top);
    page_printf(p, "</div>\n");
    char desc[160];
    snprintf(desc, sizeof desc,
             "From dark purple for weight 0 through teal to yellow for "
             "weight %.3f.",
             top);
    svg_open(p, "colour-scale", 300, 36, "Colour scale: viridis", desc);
    svg_colour_bar(p, 10, 4, 280, 14, 0, top);
    svg_close(p);
    page_printf(p, "</section>\n");
}

/* ---- The position table ----------------------------------------------------------- */

enum { PE_COLS = 256, PLOT_W = 400, PLOT_H = 200, PLOT_M = 30 };

/* The (T, D) table as an image: a row per position, a column per dim. */
static void position_image(html_page *p, const explain_page *e, const recorded *pe, double lo,
                           double hi)
{
    const int T = (int)pe->dims[0], D = (int)pe->dims[1], cols = D < PE_COLS ? D : PE_COLS;
    const double rh = T <= 10 ? 16 : T <= 40 ? 4 : 2;
    char desc[200], hex[8];
    snprintf(desc, sizeof desc,
             "Positions 0 to %d from top to bottom, dimensions 0 to %d from "
             "left to right; colour from dark purple (%.2f) to yellow (%.2f).",
             T - 1, cols - 1, lo, hi);
    svg_open(p, "position-table", cols * 2, T * rh, "The position table as an image", desc);
    for (int t = 0; t < T; t++)
        for (int d = 0; d < cols; d++) {
            viridis_hex((pe->data[(size_t)t * D + d] - lo) / (hi > lo ? hi - lo : 1), hex);
            svg_rect(p, d * 2, t * rh, 2.1, rh + 0.1, hex, NULL); /* pe is (T, D) */
        }
    svg_close(p);
    page_printf(p, "<p class=\"note\">%d positions \u00d7 %s%d dimensions (%s)%s.</p>\n", T,
                cols < D ? "the first " : "", cols,
                e->cfg->position == TF_POSITION_SINUSOIDAL ? "computed: sin and cos of t at "
                                                             "falling frequencies"
                                                           : "learned rows",
                cols < D ? "; the whole table is in the diagram's box" : "");
}

/* The plot's x of position t in 0..tmax, y of value v in lo..hi. */
static double plot_x(double t, double tmax)
{
    return PLOT_M + t / tmax * (PLOT_W - 2 * PLOT_M);
}

static double plot_y(double v, double lo, double hi)
{
    return PLOT_H - PLOT_M - (v - lo) / (hi - lo) * (PLOT_H - 2 * PLOT_M);
}

/* Column d of the table: the formula's curve (sinusoidal) and the traced
 * values as dots. */
static void position_curve(html_page *p, const explain_page *e, const recorded *pe, int d, int k,
                           double tmax, double lo, double hi)
{
    enum { SAMPLES = 120 };
    const int T = (int)pe->dims[0], D = (int)pe->dims[1];
    double x[SAMPLES], y[SAMPLES];
    int n = 0;
    if (e->cfg->position == TF_POSITION_SINUSOIDAL) {
        const double rate = pow(10000.0, -(double)(d - d % 2) / D);
        for (; n < SAMPLES; n++) {
            const double t = tmax * n / (SAMPLES - 1);
            x[n] = plot_x(t, tmax);
            y[n] = plot_y(d % 2 ? cos(t * rate) : sin(t * rate), lo, hi);
        }
    } else {
        for (; n < T && n < SAMPLES; n++)
            x[n] = plot_x(n, tmax), y[n] = plot_y(pe->data[(size_t)n * D + d], lo, hi);
    }
    page_printf(p, "<g style=\"stroke:%s;fill:%s\">", curve_colours[k], curve_colours[k]);
    svg_polyline(p, x, y, n, "curve");
    for (int t = 0; t < T; t++)
        page_printf(p, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>", plot_x(t, tmax),
                    plot_y(pe->data[(size_t)t * D + d], lo, hi));
    page_printf(p, "</g>\n");
}

/* Up to four columns: 0 and 1 (the fastest sin and cos), D/16 and D/8
 * (slower ones), distinct and even where D allows. */
static int curve_dims(int D, int dims[4])
{
    const int wanted[4] = {0, 1, D / 32 * 2, D / 16 * 2};
    int n = 0;
    for (int i = 0; i < 4; i++) {
        int seen = wanted[i] >= D;
        for (int j = 0; j < n; j++)
            seen |= dims[j] == wanted[i];
        if (!seen)
            dims[n++] = wanted[i];
    }
    return n;
}

static void position_curves(html_page *p, const explain_page *e, const recorded *pe, double lo,
                            double hi)
{
    const int T = (int)pe->dims[0], D = (int)pe->dims[1];
    const int sinusoidal = e->cfg->position == TF_POSITION_SINUSOIDAL;
    const double tmax = sinusoidal && T - 1 < 24 ? 24 : T > 1 ? T - 1 : 1;
    int dims[4];
    const int n = curve_dims(D, dims);
    char desc[200], label[32];
    snprintf(desc, sizeof desc,
             "%d columns of the position table against position 0 to %.0f; "
             "dots are the traced values at the sentence's %d positions.",
             n, tmax, T);
    svg_open(p, "position-curves", PLOT_W, PLOT_H, "Columns of the position table", desc);
    svg_line(p, PLOT_M, plot_y(lo < 0 && hi > 0 ? 0 : lo, lo, hi), PLOT_W - PLOT_M,
             plot_y(lo < 0 && hi > 0 ? 0 : lo, lo, hi), "axis");
    svg_line(p, PLOT_M, PLOT_M, PLOT_M, PLOT_H - PLOT_M, "axis");
    for (int k = 0; k < n; k++)
        position_curve(p, e, pe, dims[k], k, tmax, lo, hi);
    for (int k = 0; k < n; k++) {
        snprintf(label, sizeof label, "dim %d (%s)", dims[k],
                 sinusoidal ? (dims[k] % 2 ? "cos" : "sin") : "learned");
        page_printf(p, "<g style=\"fill:%s\">", curve_colours[k]);
        svg_text(p, PLOT_M + 6 + k * 90, 14, "start", "small", 0, label);
        page_printf(p, "</g>");
    }
    snprintf(label, sizeof label, "position 0..%.0f", tmax);
    svg_text(p, PLOT_W - PLOT_M, PLOT_H - 8, "end", "small", 0, label);
    svg_close(p);
}

void html_positions(html_page *p, const explain_page *e)
{
    const recorded *pe = recording_find(e->rec, "embed.position"); /* [T, D] */
    if (!pe) {
        page_printf(p,
                    "<section id=\"positions\"><h2>Positional encoding</h2><p>This model "
                    "adds none: its input is the token vectors alone.</p></section>\n");
        return;
    }
    double lo, hi, mean;
    tensor_stats(pe, &lo, &hi, &mean);
    if (e->cfg->position == TF_POSITION_SINUSOIDAL)
        lo = -1.1, hi = 1.1;
    else if (hi <= lo)
        hi = lo + 1;
    page_printf(p, "<section id=\"positions\"><h2>Positional encoding</h2>\n");
    position_image(p, e, pe, lo, hi);
    position_curves(p, e, pe, lo, hi);
    page_printf(p, "</section>\n");
}

/* ---- LayerNorm before and after --------------------------------------------------- */

/* Each row's mean and std of a + b (b may be NULL), both (T, D). */
static void row_stats(const float *a, const float *b, int T, int D, double *mean, double *std)
{
    for (int t = 0; t < T; t++) {
        double s = 0, s2 = 0;
        for (int i = 0; i < D; i++) {
            const double v = a[(size_t)t * D + i] + (b ? b[(size_t)t * D + i] : 0);
            s += v, s2 += v * v;
        }
        mean[t] = s / D;
        std[t] = sqrt(fmax(s2 / D - mean[t] * mean[t], 0));
    }
}

/* The input of the chosen layer: the previous layer's output or the
 * embeddings. */
static const recorded *layer_input(const explain_page *e)
{
    char name[64];
    if (e->layer == 0) {
        const recorded *norm = recording_find(e->rec, "embed.norm");
        return norm ? norm : recording_find(e->rec, "embed.sum");
    }
    snprintf(name, sizeof name, "layers.%d.add_norm2", e->layer - 1);
    return recording_find(e->rec, name);
}

/* What went into the LayerNorm that made `after`: a, plus b where not NULL. */
static int norm_input(const explain_page *e, const recorded *after, const recorded **a,
                      const recorded **b)
{
    const char *name = short_name(after);
    const int pre = e->cfg->norm_placement == TF_NORM_PRE;
    char last[64];
    snprintf(last, sizeof last, "layers.%d.add_norm2", (int)e->cfg->n_layers - 1);
    *b = NULL;
    if (!strcmp(name, "embed.norm"))
        *a = recording_find(e->rec, "embed.sum");
    else if (!strcmp(name, "final_norm"))
        *a = recording_find(e->rec, last);
    else if (after->layer != e->layer)
        return 0;
    else if (!strcmp(name, "norm1"))
        *a = layer_input(e);
    else if (!strcmp(name, "norm2"))
        *a = layer_event(e, "add_norm1");
    else if (!pre && !strcmp(name, "add_norm1"))
        *a = layer_input(e), *b = layer_event(e, "attn.out");
    else if (!pre && !strcmp(name, "add_norm1b"))
        *a = layer_input(e), *b = layer_event(e, "add_norm1");
    else if (!pre && !strcmp(name, "add_norm2"))
        *a = layer_event(e, e->cfg->add_norm1b ? "add_norm1b" : "add_norm1"),
        *b = layer_event(e, "ffn.out");
    else
        return 0;
    return *a != NULL;
}

/* The std of each token's row before (grey) and after (blue) as bars. */
static void norm_chart(html_page *p, const explain_page *e, const char *name, const double *before,
                       const double *after)
{
    const int T = e->T;
    double top = 1;
    for (int t = 0; t < T; t++)
        top = fmax(top, fmax(before[t], after[t]));
    const double bw = (PLOT_W - 2.0 * PLOT_M) / T;
    char id[96], desc[200], label[HEAT_LABEL_BYTES + 1];
    snprintf(id, sizeof id, "norm-%s", name);
    snprintf(desc, sizeof desc,
             "Per token, two bars: the row's standard deviation before "
             "(grey) and after (blue) the LayerNorm %s; the line marks 1.",
             name);
    svg_open(p, id, PLOT_W, 150, "Standard deviation of each token's row", desc);
    for (int t = 0; t < T; t++) {
        const double x = PLOT_M + t * bw;
        svg_rect(p, x + bw * 0.1, 120 - before[t] / top * 100, bw * 0.4, before[t] / top * 100,
                 NULL, "before");
        svg_rect(p, x + bw * 0.5, 120 - after[t] / top * 100, bw * 0.4, after[t] / top * 100, NULL,
                 "after");
        if (T <= 16) {
            short_label(e->tokens[t], label, sizeof label);
            svg_text(p, x + bw / 2, 134, "middle", "small", 0, label);
        }
    }
    svg_line(p, PLOT_M, 120 - 100 / top, PLOT_W - PLOT_M, 120 - 100 / top, "axis");
    svg_close(p);
}

static void norm_table(html_page *p, const explain_page *e, const double *stats[4])
{
    page_printf(p,
                "<div class=\"scroll\"><table class=\"values\"><tr><th>token</th>"
                "<th>mean before</th><th>std before</th><th>mean after</th>"
                "<th>std after</th></tr>\n");
    for (int t = 0; t < e->T; t++) {
        page_printf(p, "<tr><th scope=\"row\">");
        page_escaped(p, e->tokens[t]);
        page_printf(p, "</th><td>%+.4f</td><td>%.4f</td><td>%+.4f</td><td>%.4f</td></tr>\n",
                    stats[0][t], stats[1][t], stats[2][t], stats[3][t]);
    }
    page_printf(p, "</table></div>\n");
}

static void layer_norm(html_page *p, const explain_page *e, const recorded *after)
{
    enum { MAX_T = 64 };
    const recorded *a, *b;
    if (e->T > MAX_T || !norm_input(e, after, &a, &b))
        return;
    const int T = e->T, D = e->cfg->d_model;
    double mb[MAX_T], sb[MAX_T], ma[MAX_T], sa[MAX_T];
    row_stats(a->data, b ? b->data : NULL, T, D, mb, sb);
    row_stats(after->data, NULL, T, D, ma, sa);
    page_printf(p, "<h3><code>%s</code> = LayerNorm(<code>%s</code>%s%s%s)</h3>\n", after->name,
                a->name, b ? " + <code>" : "", b ? b->name : "", b ? "</code>" : "");
    norm_chart(p, e, after->name, sb, sa);
    norm_table(p, e, (const double *[4]){mb, sb, ma, sa});
}

void html_layer_norms(html_page *p, const explain_page *e)
{
    page_printf(p,
                "<section id=\"layer-norms\"><h2>LayerNorm: each token's mean and standard "
                "deviation, before and after</h2>\n<p>LayerNorm makes each row mean 0, "
                "std 1, then scales and shifts it by learned weights (1 and 0 in a fresh "
                "model).</p>\n");
    for (size_t i = 0; i < e->rec->n; i++)
        if (in_walkthrough(e, &e->rec->events[i]))
            layer_norm(p, e, &e->rec->events[i]);
    page_printf(p, "</section>\n");
}

/* ---- The FFN activation ------------------------------------------------------------ */

void html_ffn_histogram(html_page *p, const explain_page *e)
{
    enum { BINS = 40 };
    const recorded *h = layer_event(e, "ffn.hidden"); /* [1, T, F] */
    if (!h)
        return;
    double lo, hi, mean;
    tensor_stats(h, &lo, &hi, &mean);
    const double width = hi > lo ? (hi - lo) / BINS : 1;
    size_t count[BINS] = {0}, top = 1, zeros = 0;
    for (size_t i = 0; i < h->count; i++) {
        const int bin = (int)((h->data[i] - lo) / width);
        const size_t in_bin = ++count[bin < BINS ? bin : BINS - 1];
        top = in_bin > top ? in_bin : top;
        zeros += h->data[i] == 0;
    }
    char desc[240], label[48];
    snprintf(desc, sizeof desc,
             "A histogram of the %zu values of %s in %d bins from %.3f to "
             "%.3f; %zu values are exactly 0.",
             h->count, h->name, BINS, lo, hi, zeros);
    page_printf(p, "<section id=\"ffn\"><h2>The FFN's activation (%s), layer %d</h2>\n",
                tf_activation_name(e->cfg->activation), e->layer);
    svg_open(p, "ffn-histogram", PLOT_W, PLOT_H, "Distribution of the FFN activation", desc);
    const double bw = (PLOT_W - 2.0 * PLOT_M) / BINS;
    for (int k = 0; k < BINS; k++) {
        const double hgt = (double)count[k] / (double)top * (PLOT_H - 2 * PLOT_M);
        svg_rect(p, PLOT_M + k * bw, PLOT_H - PLOT_M - hgt, bw * 0.9, hgt, NULL, "bar");
    }
    svg_line(p, PLOT_M, PLOT_H - PLOT_M, PLOT_W - PLOT_M, PLOT_H - PLOT_M, "axis");
    snprintf(label, sizeof label, "%.3f", lo);
    svg_text(p, PLOT_M, PLOT_H - PLOT_M + 14, "start", "small", 0, label);
    snprintf(label, sizeof label, "%.3f", hi);
    svg_text(p, PLOT_W - PLOT_M, PLOT_H - PLOT_M + 14, "end", "small", 0, label);
    snprintf(label, sizeof label, "highest bin: %zu values", top);
    svg_text(p, PLOT_M, 14, "start", "small", 0, label);
    svg_close(p);
    page_printf(p,
                "<p class=\"note\">%zu values (%d tokens \u00d7 %d): mean %.4f, %zu exactly "
                "0 (%.1f %%).</p>\n</section>\n",
                h->count, e->T, (int)e->cfg->d_ff, mean, zeros,
                100.0 * (double)zeros / (double)h->count);
}
