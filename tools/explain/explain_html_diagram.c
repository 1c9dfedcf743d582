/* explain_html_diagram.c — the data-flow diagram: the tokens at the top,
 * then one box per traced tensor in the order of computation (Q, K and V
 * side by side), each arrow labelled with its operation and shape algebra.
 * Every box links to its values (explain_html_values.c) and carries a
 * tooltip with its exact shape and range.
 *
 * Layout, in the picture's units: WIDTH wide; a box BOX high, then an arrow
 * ARROW high with two lines of text beside it. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_html_parts.h"
#include "shape_text.h"
#include "utf8.h"

enum { WIDTH = 400, MARGIN = 8, BOX = 42, ARROW = 46, ARROW_X = 28, QKV_GAP = 8 };

/* One box of the diagram and the arrow into it. */
typedef struct step {
    const recorded *ev[3]; /* one tensor, or Q, K, V side by side */
    int n;
    char title[48];
    char op[112], algebra[112];
} step;

/* ---- What each arrow does ------------------------------------------------------ */

static void describe_embedding(const explain_page *e, const char *name, step *s)
{
    const tf_config *c = e->cfg;
    const int D = c->d_model, T = e->T;
    if (!strcmp(name, "embed.token")) {
        snprintf(s->title, sizeof s->title, "Token embedding");
        if (c->vocab_size)
            snprintf(s->op, sizeof s->op, "each id picks a row of the table (%d, %d)",
                     (int)c->vocab_size, D);
        else
            snprintf(s->op, sizeof s->op, "no table: each token a vector drawn N(0, 1)");
        snprintf(s->algebra, sizeof s->algebra, "(%d) ids \u2192 (%d, %d)", T, T, D);
    } else if (!strcmp(name, "embed.position")) {
        snprintf(s->title, sizeof s->title, "Positional encoding");
        if (c->position == TF_POSITION_SINUSOIDAL)
            snprintf(s->op, sizeof s->op, "PE(t, 2i) = sin(t/10000^(2i/%d)), 2i+1: cos", D);
        else
            snprintf(s->op, sizeof s->op, "learned: rows 0..%d of the table (%d, %d)", T - 1,
                     (int)c->max_positions, D);
        snprintf(s->algebra, sizeof s->algebra, "positions 0..%d \u2192 (%d, %d)", T - 1, T, D);
    } else if (!strcmp(name, "embed.token_type")) {
        snprintf(s->title, sizeof s->title, "Token-type embedding");
        snprintf(s->op, sizeof s->op, "sentence A's row of the table (%d, %d)",
                 (int)c->n_token_types, D);
        snprintf(s->algebra, sizeof s->algebra, "(%d) types \u2192 (%d, %d)", T, T, D);
    } else if (!strcmp(name, "embed.sum")) {
        snprintf(s->title, sizeof s->title, "x = the embeddings' sum");
        snprintf(s->op, sizeof s->op, "added element-wise, not concatenated");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) + (%d, %d) \u2192 (%d, %d)", T, D, T, D,
                 T, D);
    } else { /* embed.norm */
        snprintf(s->title, sizeof s->title, "Embedding LayerNorm");
        snprintf(s->op, sizeof s->op, "LayerNorm of each row: mean 0, std 1, then scaled");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u2192 (%d, %d)", T, D, T, D);
    }
}

/* After the last layer: final_norm (pre-norm stacks) and pooler. */
static void describe_end(const explain_page *e, const char *name, step *s)
{
    const int D = e->cfg->d_model, T = e->T;
    if (!strcmp(name, "pooler")) {
        snprintf(s->title, sizeof s->title, "Pooler");
        snprintf(s->op, sizeof s->op, "tanh(W_p h[CLS] + b_p): one vector per sentence");
        snprintf(s->algebra, sizeof s->algebra, "(%d) \u00b7 (%d, %d) \u2192 (%d)", D, D, D, D);
    } else {
        snprintf(s->title, sizeof s->title, "Final LayerNorm: the encoder's output");
        snprintf(s->op, sizeof s->op, "LayerNorm of each row after the last layer");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u2192 (%d, %d)", T, D, T, D);
    }
}

static void describe_attention(const explain_page *e, const char *name, step *s)
{
    const int D = e->cfg->d_model, H = e->cfg->n_heads, dk = D / H, T = e->T;
    if (!strcmp(name, "attn.q")) {
        snprintf(s->title, sizeof s->title, "Q, K, V");
        snprintf(s->op, sizeof s->op, "x W_Q, x W_K, x W_V (+ biases), split into %d heads", H);
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d) per head",
                 T, D, D, dk, T, dk);
    } else if (!strcmp(name, "attn.scores")) {
        snprintf(s->title, sizeof s->title, "Scaled scores");
        snprintf(s->op, sizeof s->op, "Q K\u1d40 / \u221ad_k (\u221a%d = %.3f)", dk, sqrt(dk));
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d) per head",
                 T, dk, dk, T, T, T);
    } else if (!strcmp(name, "attn.weights")) {
        snprintf(s->title, sizeof s->title, "Attention weights");
        snprintf(s->op, sizeof s->op, "softmax of each row: every row sums to 1");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u2192 (%d, %d) per head", T, T, T, T);
    } else if (!strcmp(name, "attn.context")) {
        snprintf(s->title, sizeof s->title, "Context, heads concatenated");
        snprintf(s->op, sizeof s->op, "\u00b7 V per head: (%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d)",
                 T, T, T, dk, T, dk);
        snprintf(s->algebra, sizeof s->algebra, "concat: %d \u00d7 (%d, %d) \u2192 (%d, %d)", H, T,
                 dk, T, D);
    } else {
        snprintf(s->title, sizeof s->title, "Attention output");
        snprintf(s->op, sizeof s->op, "\u00b7 W_O (+ b_O)");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d)", T, D, D,
                 D, T, D);
    }
}

static void describe_block(const explain_page *e, const recorded *ev, const char *name, step *s)
{
    const int D = e->cfg->d_model, F = e->cfg->d_ff, T = e->T;
    const int pre = e->cfg->norm_placement == TF_NORM_PRE;
    if (ev->layer != e->layer) { /* another layer's output */
        snprintf(s->title, sizeof s->title, "Layer %d (the same steps)", (int)ev->layer);
        snprintf(s->op, sizeof s->op, "layer %d: attention, FFN, %s", (int)ev->layer,
                 pre ? "residuals" : "Add & Norm");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u2192 (%d, %d)", T, D, T, D);
    } else if (!strcmp(name, "norm1") || !strcmp(name, "norm2")) {
        snprintf(s->title, sizeof s->title, "LayerNorm (pre-norm)");
        snprintf(s->op, sizeof s->op, "LayerNorm(x) goes into the %s",
                 name[4] == '1' ? "attention" : "feed-forward network");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u2192 (%d, %d)", T, D, T, D);
    } else if (!strcmp(name, "ffn.hidden")) {
        snprintf(s->title, sizeof s->title, "FFN hidden layer");
        snprintf(s->op, sizeof s->op, "\u00b7 W_1 + b_1, then %s element-wise",
                 tf_activation_name(e->cfg->activation));
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d)", T, D, D,
                 F, T, F);
    } else if (!strcmp(name, "ffn.out")) {
        snprintf(s->title, sizeof s->title, "FFN output");
        snprintf(s->op, sizeof s->op, "\u00b7 W_2 + b_2: back to d_model");
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) \u00b7 (%d, %d) \u2192 (%d, %d)", T, F, F,
                 D, T, D);
    } else { /* add_norm1, add_norm2 */
        const char *what = name[8] == '1' ? "attention" : "FFN";
        snprintf(s->title, sizeof s->title, "%s%s", pre ? "Residual" : "Add & Norm",
                 name[8] == '2' ? ": the layer's output" : "");
        if (pre)
            snprintf(s->op, sizeof s->op, "x + %s output (pre-norm: no norm here)", what);
        else
            snprintf(s->op, sizeof s->op, "LayerNorm(x + %s output)", what);
        snprintf(s->algebra, sizeof s->algebra, "(%d, %d) + (%d, %d) \u2192 (%d, %d)", T, D, T, D,
                 T, D);
    }
}

/* The steps of the walkthrough, in the order of computation: at most
 * cap; their number. */
static int collect_steps(const explain_page *e, step *steps, int cap)
{
    int n = 0;
    for (size_t i = 0; i < e->rec->n && n < cap; i++) {
        const recorded *ev = &e->rec->events[i];
        const char *name = short_name(ev);
        if (!in_walkthrough(e, ev) ||
            (ev->layer >= 0 && (!strcmp(name, "attn.k") || !strcmp(name, "attn.v"))))
            continue; /* K and V stand beside Q */
        step *s = &steps[n++];
        *s = (step){.ev = {ev}, .n = 1};
        if (!strcmp(name, "final_norm") || !strcmp(name, "pooler"))
            describe_end(e, name, s);
        else if (ev->layer < 0)
            describe_embedding(e, name, s);
        else if (!strncmp(name, "attn.", 5) && ev->layer == e->layer)
            describe_attention(e, name, s);
        else
            describe_block(e, ev, name, s);
        if (!strcmp(name, "attn.q")) {
            s->ev[1] = layer_event(e, "attn.k"), s->ev[2] = layer_event(e, "attn.v");
            s->n = s->ev[1] && s->ev[2] ? 3 : 1;
        }
    }
    return n;
}

/* ---- Drawing -------------------------------------------------------------------- */

/* One tensor's box at (x, y), w wide, linking to its values; label the
 * first line (the shape follows it). */
static void draw_box(html_page *p, const recorded *ev, const char *label, double x, double y,
                     double w)
{
    char shape[64], tip[384];
    double lo, hi, mean;
    tutorial_shape(ev, shape, sizeof shape);
    tensor_stats(ev, &lo, &hi, &mean);
    const shape_text exact = shape_text_of(ev->dims, ev->rank);
    snprintf(tip, sizeof tip, "%s %s (%s): min %.4g, max %.4g, mean %.4g; select for its values",
             ev->name, exact.text, ev->dim_names, lo, hi, mean);
    page_printf(p,
                "<a class=\"node\" href=\"#t-%s\" data-tensor=\"%s\" data-shape=\"%s\" "
                "aria-label=\"",
                ev->name, ev->name, exact.text);
    page_escaped(p, tip);
    page_printf(p, "\"><title>");
    page_escaped(p, tip);
    page_printf(p, "</title>");
    svg_rect(p, x, y, w, BOX, NULL, "box");
    char line[256];
    snprintf(line, sizeof line, "%s  %s", label, shape);
    svg_text(p, x + 6, y + 17, "start", "name", 0, line);
    snprintf(line, sizeof line, "%s %s", ev->name, exact.text);
    svg_text(p, x + 6, y + 33, "start", "trace", 0, w > 200 ? line : ev->name);
    page_printf(p, "</a>\n");
}

static void draw_tokens(html_page *p, const explain_page *e, double y)
{
    enum { SHOWN = 48 }; /* bytes of the tokens that fit the box */
    char line[SHOWN + 8];
    size_t used = 0;
    line[0] = '\0';
    for (int t = 0; t < e->T && used <= SHOWN; t++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", t ? " " : "",
                                 e->tokens[t]);
    if (used > SHOWN)
        snprintf(line + tf__utf8_prefix(line, SHOWN - 3), 4, "...");
    svg_rect(p, MARGIN, y, WIDTH - 2 * MARGIN, BOX, NULL, "tokens");
    svg_text(p, MARGIN + 6, y + 17, "start", "name", 0, line);
    snprintf(line, sizeof line, "%d tokens (ids %d ... %d)", e->T, (int)e->ids[0],
             (int)e->ids[e->T - 1]);
    svg_text(p, MARGIN + 6, y + 33, "start", "trace", 0, line);
}

static void draw_step(html_page *p, const step *s, double y)
{
    svg_arrow_down(p, ARROW_X, y, y + ARROW);
    svg_text(p, ARROW_X + 12, y + 18, "start", "op", 0, s->op);
    svg_text(p, ARROW_X + 12, y + 34, "start", "algebra", 0, s->algebra);
    y += ARROW;
    if (s->n == 1) {
        draw_box(p, s->ev[0], s->title, MARGIN, y, WIDTH - 2 * MARGIN);
        return;
    }
    static const char *const qkv[3] = {"Q", "K", "V"};
    const double w = (WIDTH - 2 * MARGIN - 2 * QKV_GAP) / 3.0;
    for (int i = 0; i < 3; i++)
        draw_box(p, s->ev[i], qkv[i], MARGIN + i * (w + QKV_GAP), y, w);
}

void html_diagram(html_page *p, const explain_page *e)
{
    step *steps = malloc((e->rec->n ? e->rec->n : 1) * sizeof *steps); /* [at most one per event] */
    if (!steps) {
        p->out_of_memory = 1;
        return;
    }
    const int n = collect_steps(e, steps, (int)e->rec->n);
    const double height = BOX + n * (ARROW + BOX) + MARGIN;
    char desc[256];
    snprintf(desc, sizeof desc,
             "The tokens, then %d boxes, one per traced tensor of layer %d "
             "and the embeddings, each arrow labelled with its operation and shapes.",
             n, e->layer);
    svg_open(p, "diagram", WIDTH, height, "Data flow of the forward pass", desc);
    draw_tokens(p, e, 0);
    for (int i = 0; i < n; i++)
        draw_step(p, &steps[i], BOX + i * (ARROW + BOX));
    svg_close(p);
    free(steps);
}
