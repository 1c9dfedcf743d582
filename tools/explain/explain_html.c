/* explain_html.c — the --html page: its head and style sheet, the model
 * and the sentence, the sections in the tutorial's order, the worked
 * example beside the tutorial's numbers, and writing it whole. */
#include "explain_html.h"

#include <math.h>
#include <stdio.h>

#include "explain_html_parts.h"
#include "explain_html_retrieval.h"
#include "html_page.h"

/* The whole style sheet: one column on a phone, the diagram beside the
 * values from 900 px; tables scroll inside their box, never the page;
 * print shows everything, links as plain text. */
static const char style[] =
    ":root{color-scheme:light}"
    "*{box-sizing:border-box}"
    "body{font:15px/1.45 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;"
    "max-width:1200px;padding:0 12px 40px}"
    "h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.2em;margin-top:1.6em;"
    "border-bottom:1px solid #ccc}h3{font-size:1em;margin:1em 0 .3em;overflow-wrap:anywhere}"
    "code{font:13px ui-monospace,monospace;overflow-wrap:anywhere}"
    "svg{display:block;max-width:100%;height:auto}"
    "figure{margin:0}figcaption,.note,.stats{font-size:13px;color:#444}"
    ".scroll{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;font:12px ui-monospace,monospace}"
    "th,td{padding:2px 6px;text-align:right;border-bottom:1px solid #e4e4e4;white-space:nowrap}"
    "th[scope=row]{text-align:left}"
    ".flow{display:grid;grid-template-columns:minmax(0,1fr);gap:16px}"
    "@media (min-width:900px){.flow{grid-template-columns:420px minmax(0,1fr)}}"
    ".tensor{padding:4px 8px;border-left:3px solid transparent}"
    ".tensor:target{border-left-color:#3b528b;background:#f2f6fc}"
    "#diagram text{font:12px system-ui,sans-serif;fill:#111}"
    "#diagram .trace,#diagram .algebra{font:10px ui-monospace,monospace;fill:#333}"
    "#diagram .op{font-size:11px;fill:#333}#diagram .name{font-weight:600}"
    "#diagram .box{fill:#eef3fb;stroke:#3b528b}#diagram .tokens{fill:#fff7e0;stroke:#a07a00}"
    "#diagram a:hover .box,#diagram a:focus .box{fill:#cfe0f6;stroke-width:2}"
    ".arrow{stroke:#555;stroke-width:1.5}.arrowhead{fill:#555}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}"
    ".small{font:10px system-ui,sans-serif;fill:#222}"
    ".cell{font:8px ui-monospace,monospace}.cell.dark{fill:#000}.cell.light{fill:#fff}"
    ".heat rect,#position-table rect{shape-rendering:crispEdges}"
    ".axis{stroke:#888;stroke-width:1}.curve{fill:none;stroke-width:1.5}"
    ".before{fill:#9a9a9a}.after{fill:#3b528b}.bar{fill:#21918c}"
    ".worked td.tutorial{color:#555}.worked td.differs{background:#fff0c0}"
    "@media print{body{max-width:none;padding:0}.noprint{display:none}"
    "section,figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}"
    ".flow{grid-template-columns:minmax(0,1fr)}}";

static void page_head(html_page *p)
{
    page_printf(p,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<title>libtfenc %s: a Transformer encoder, step by step</title>"
                "<style>%s</style></head>\n<body>\n",
                tf_version_string(), style);
}

static void model_summary(html_page *p, const explain_page *e)
{
    const tf_config *c = e->cfg;
    page_printf(p, "<h1>A Transformer encoder, step by step</h1>\n<p>libtfenc %s ran ",
                tf_version_string());
    if (e->model) {
        page_printf(p, "the model <code>");
        page_escaped(p, e->model);
        page_printf(p, "</code>");
    } else {
        page_printf(p, "the tutorial's model (weights drawn from seed %llu)",
                    (unsigned long long)c->seed);
    }
    page_printf(p,
                ": d_model %d, %d heads (d_k %d), d_ff %d, %d layer%s, %s, %s-norm, %s%s%s%s."
                "</p>\n",
                (int)c->d_model, (int)c->n_heads, (int)(c->d_model / c->n_heads), (int)c->d_ff,
                (int)c->n_layers, c->n_layers > 1 ? "s" : "", tf_activation_name(c->activation),
                tf_norm_placement_name(c->norm_placement),
                c->position == TF_POSITION_NONE ? "no" : tf_position_name(c->position),
                " positions", c->final_norm ? ", a final LayerNorm" : "",
                c->pooler ? ", a pooler" : "");
    page_printf(p, "<p>Input <q>");
    page_escaped(p, e->text);
    page_printf(p, "</q> \u2192 %d tokens:", e->T);
    for (int t = 0; t < e->T; t++) {
        page_printf(p, " <code>");
        page_escaped(p, e->tokens[t]);
        page_printf(p, "</code>=%d", (int)e->ids[t]);
    }
    page_printf(p,
                ". Below, layer %d step by step; every box of the diagram is a tensor the "
                "library traced in this forward pass, with its exact shape: select it for "
                "its values.</p>\n",
                e->layer);
}

/* ---- The worked example -------------------------------------------------------- */

/* One step's rows: the library's value and the tutorial's, side by side. */
static void example_rows(html_page *p, const char *step, const char *key, const double *ours,
                         const double *theirs, int rows, int cols)
{
    for (int i = 0; i < rows; i++) {
        page_printf(p, "<tr><th scope=\"row\">%s</th><td>%d</td>", i ? "" : step, i);
        for (int j = 0; j < cols; j++) {
            const double a = ours[i * cols + j], b = theirs[i * cols + j];
            page_printf(p,
                        "<td data-we=\"%s.%d.%d\">%.3f</td><td class=\"tutorial%s\" "
                        "data-we-tutorial=\"%s.%d.%d\">%.3f</td>",
                        key, i, j, a, lround(a * 1000) != lround(b * 1000) ? " differs" : "", key,
                        i, j, b);
        }
        for (int j = cols; j < WE_T; j++)
            page_printf(p, "<td></td><td></td>");
        page_printf(p, "</tr>\n");
    }
}

static void worked_example_table(html_page *p, const worked_example *w)
{
    const worked_example *t = &worked_example_tutorial;
    page_printf(p,
                "<section id=\"worked-example\"><h2>The worked example (tutorial, section "
                "3.3)</h2>\n<p>3 tokens, one head, d_k = 2, computed by libtfenc (d_model 2, "
                "W_Q = W_K = I, b_K = 0.2, so the layer's Q and K are the tutorial's) beside "
                "the tutorial's own numbers.</p>\n<div class=\"scroll\">"
                "<table class=\"worked\" id=\"worked-table\"><tr><th>step</th><th>row</th>");
    for (int j = 0; j < WE_T; j++)
        page_printf(p, "<th>libtfenc [%d]</th><th>tutorial [%d]</th>", j, j);
    page_printf(p, "</tr>\n");
    example_rows(p, "Q", "q", &w->q[0][0], &t->q[0][0], WE_T, WE_DK);
    example_rows(p, "K", "k", &w->k[0][0], &t->k[0][0], WE_T, WE_DK);
    example_rows(p, "Q K\u1d40", "qk", &w->qk[0][0], &t->qk[0][0], WE_T, WE_T);
    example_rows(p, "\u00f7 \u221a2", "scaled", &w->scaled[0][0], &t->scaled[0][0], WE_T, WE_T);
    example_rows(p, "e^x", "exp", &w->exp[0][0], &t->exp[0][0], WE_T, WE_T);
    example_rows(p, "row sum", "sum", w->sum, t->sum, WE_T, 1);
    example_rows(p, "weights", "weights", &w->weights[0][0], &t->weights[0][0], WE_T, WE_T);
    page_printf(p,
                "</table></div>\n<p class=\"note\">On rounding: the tutorial rounds every "
                "step to 3 decimals and computes the next from the rounded value, so its "
                "last digit can differ by 1 from the library's (highlighted), which carries "
                "float precision throughout. The library also subtracts each row's maximum "
                "before e^x, which changes no ratio.</p>\n</section>\n");
}

/* ---- The page ------------------------------------------------------------------ */

static void page_body(html_page *p, const explain_page *e)
{
    model_summary(p, e);
    page_printf(p,
                "<section id=\"walkthrough\"><h2>The data flow, layer %d</h2>\n"
                "<div class=\"flow\"><div id=\"diagram-box\">",
                e->layer);
    html_diagram(p, e);
    page_printf(p, "</div><div id=\"values\">\n");
    html_values(p, e);
    page_printf(p, "</div></div></section>\n");
    html_heatmaps(p, e);
    html_positions(p, e);
    html_layer_norms(p, e);
    html_ffn_histogram(p, e);
    html_retrieval(p, e->retrieval);
    worked_example_table(p, e->example);
    page_printf(p,
                "<footer class=\"note\">Made by <code>tfenc explain --html</code> from "
                "the library's trace of one forward call; one file, nothing fetched."
                "</footer>\n</body></html>\n");
}

int explain_html_write(const char *path, const explain_page *e, char *err, size_t err_size)
{
    html_page p = {0};
    page_head(&p);
    page_body(&p, e);
    const int rc = page_write(&p, path, err, err_size);
    page_free(&p);
    return rc;
}
