/* explain.c — `tfenc explain`: an encoder run on a sentence, printed step by
 * step from the library's trace events (each tensor's name, exact shape,
 * the shape algebra of each product, real values); or, with --heatmap,
 * --dump and --compare, the same events drawn, saved or checked against
 * another implementation; or the tutorial's worked example. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "config_view.h"
#include "dump.h"
#include "explain_html.h"
#include "explain_image.h"
#include "explain_retrieval.h"
#include "heatmap.h"
#include "options.h"
#include "recording.h"
#include "tfenc.h"

/* A small built-in vocabulary for when no vocab.txt is given: words are
 * looked up whole, case-insensitively; others become [UNK]. */
static const char *const vocabulary[] = {
    "[PAD]",       "[UNK]",   "[CLS]",  "[SEP]",   "i",     "love",  "nlp",      "the",
    "a",           "an",      "model",  "is",      "all",   "you",   "need",     "attention",
    "transformer", "encoder", "reads",  "every",   "word",  "at",    "once",     "we",
    "learn",       "by",      "seeing", "numbers", "hello", "world", "sentence", "."};
enum { VOCAB = sizeof vocabulary / sizeof vocabulary[0], UNK = 1, CLS = 2, SEP = 3 };
enum { MAX_TOKENS = 64, SHOWN_VALUES = 6, SHOWN_COLUMNS = 10 };
#define MAX_TOL 1e9 /* the largest --tol */

typedef struct explain_options {
    int32_t d_model, heads, d_ff, layers, layer, head;
    int sized; /* a size or --seed of the tutorial's model was given */
    uint64_t seed;
    const char *text, *model, *vocab, *heatmap, *dump, *compare, *html, *image;
    int cased, worked_example;
    int layer_given; /* --layer was given (an image's walkthrough has every layer) */
    double tol;
    tf_load_options load;
} explain_options;

typedef struct walkthrough {
    const explain_options *opt;
    tf_config cfg;
    char *tokens[MAX_TOKENS];    /* [T]: each token as written or in the vocabulary */
    char labels[MAX_TOKENS][16]; /* [T]: their first 15 bytes, for the tables */
    int T;
    int step;
    int color, print;
    recording rec;
} walkthrough;

/* ---- Printing -------------------------------------------------------------- */

static void heading(walkthrough *w, const char *title)
{
    w->step++;
    if (w->color)
        printf("\n\033[1;36mStep %d. %s\033[0m\n", w->step, title);
    else
        printf("\nStep %d. %s\n", w->step, title);
}

static void tensor_line(const tf_trace_event *ev, const char *meaning)
{
    printf("  %s  [", ev->name);
    for (int i = 0; i < ev->rank; i++)
        printf(i ? ", %lld" : "%lld", (long long)ev->dims[i]);
    printf("]  (%s)%s%s\n", ev->dim_names, meaning[0] ? "  " : "", meaning);
}

/* One row of n values: the first few and the last. */
static void value_row(const char *label, const float *v, int n)
{
    printf("    %-8.8s [", label);
    for (int i = 0; i < n && i < SHOWN_VALUES; i++)
        printf(" %7.3f", (double)v[i]);
    if (n > SHOWN_VALUES)
        printf("  ... %7.3f", (double)v[n - 1]);
    printf(" ]  (%d values)\n", n);
}

static void token_rows(const walkthrough *w, const float *rows, int width)
{
    for (int t = 0; t < w->T; t++)
        value_row(w->labels[t], rows + (size_t)t * width, width);
}

/* A (T, T) matrix of one head with token labels; row sums when asked. */
static void token_table(const walkthrough *w, const float *m, int with_sums)
{
    const int cols = w->T < SHOWN_COLUMNS ? w->T : SHOWN_COLUMNS;
    printf("    %-8s", "");
    for (int j = 0; j < cols; j++)
        printf(" %7.7s", w->labels[j]);
    printf(w->T > cols ? "  ...\n" : (with_sums ? "  | row sum\n" : "\n"));
    for (int i = 0; i < w->T; i++) {
        double sum = 0;
        printf("    %-8.8s", w->labels[i]);
        for (int j = 0; j < w->T; j++) {
            sum += m[i * w->T + j];
            if (j < cols)
                printf(" %7.3f", (double)m[i * w->T + j]);
        }
        if (with_sums)
            printf("%s  | %.6f", w->T > cols ? "  ..." : "", sum);
        printf("\n");
    }
}

/* Mean and standard deviation of each row, to show what LayerNorm did. */
static void row_stats(const walkthrough *w, const float *rows, int width)
{
    for (int t = 0; t < w->T; t++) {
        double mean = 0, var = 0;
        for (int i = 0; i < width; i++)
            mean += rows[(size_t)t * width + i] / width;
        for (int i = 0; i < width; i++) {
            const double d = rows[(size_t)t * width + i] - mean;
            var += d * d / width;
        }
        printf("    %-8.8s mean %+.6f  std %.6f\n", w->labels[t], mean, sqrt(var));
    }
}

/* ---- The walkthrough, one trace event at a time --------------------------- */

static void explain_embedding(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = config_embed_width(&w->cfg), T = w->T; /* the embeddings' width */
    if (!strcmp(name, "embed.token")) {
        heading(w,
                w->cfg.vocab_size ? "Token embedding: each token id picks one row of the table"
                                  : "Token vectors: the model takes vectors, not ids");
        if (w->cfg.vocab_size)
            printf("  table (vocab, d_model) = (%d, %d); %d tokens -> (%d, %d)\n",
                   (int)w->cfg.vocab_size, D, T, T, D);
        else
            printf("  no embedding table: each token's vector is drawn N(0, 1) from --seed\n");
        tensor_line(ev, "batch of 1 sentence");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "embed.position")) {
        heading(w, "Positional encoding: one row per position");
        if (w->cfg.position == TF_POSITION_SINUSOIDAL)
            printf("  PE(t, 2i) = sin(t / 10000^(2i/%d)),  PE(t, 2i+1) = cos(t / 10000^(2i/%d))\n",
                   D, D);
        else
            printf("  learned: rows %d..%d of a (%d, %d) table\n", (int)w->cfg.position_offset,
                   (int)w->cfg.position_offset + T - 1, (int)w->cfg.max_positions, D);
        tensor_line(ev,
                    w->cfg.position == TF_POSITION_SINUSOIDAL
                        ? "computed for any length: it extrapolates"
                        : "bounded by max_positions");
        char label[16];
        for (int t = 0; t < T; t++) {
            snprintf(label, sizeof label, "t=%d", t);
            value_row(label, ev->data + (size_t)t * D, D);
        }
    } else if (!strcmp(name, "embed.token_type")) {
        heading(w, "Token-type embedding: sentence A or B");
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "embed.sum")) {
        heading(w, "Input x = the sum of the embeddings");
        printf("  (%d, %d) + (%d, %d) -> (%d, %d): added element-wise, not concatenated,\n"
               "  so all must have the same shape\n",
               T, D, T, D, T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "embed.norm")) {
        heading(w, "Embedding LayerNorm");
        tensor_line(ev, "each row now has mean 0 and standard deviation 1 (then scaled):");
        row_stats(w, ev->data, D);
    } else if (!strcmp(name, "embed.project")) {
        const int d_model = w->cfg.d_model;
        heading(w, "Embedding projection: from the embeddings' width to d_model");
        printf("  (%d, %d) . embed.project (%d, %d)^T + bias (%d) -> (%d, %d): the embeddings are\n"
               "  %d wide, the layers %d (ELECTRA's embeddings_project)\n",
               T, D, d_model, D, d_model, T, d_model, D, d_model);
        tensor_line(ev, "");
        token_rows(w, ev->data, d_model);
    }
}

/* Rows of the chosen head from a [1, H, T, d_k] event. */
static const float *head_rows(const walkthrough *w, const tf_trace_event *ev)
{
    return ev->data + (size_t)w->opt->head * w->T * ev->dims[3];
}

/* The rotary step: what turned Q and K, and the rotated queries. */
static void explain_rotary(walkthrough *w, const tf_trace_event *ev)
{
    const tf_config *c = &w->cfg;
    const int dk = c->d_model / c->n_heads, r = config_rotary_dim(c);
    const int local = config_layer_is_local(c, ev->layer) && c->rotary_base_local;
    const double theta = local ? (double)c->rotary_base_local : config_rotary_theta(c);
    heading(w, "Rotary positions: Q and K turned by their position");
    char position[32] = "t";
    if (c->rotary_linear_factor)
        snprintf(position, sizeof position, "(t / %g)", (double)c->rotary_linear_factor);
    printf("  each pair of dimensions (%s) of position t turns by the angle %s theta^(-2i/%d),\n"
           "  i = 0 .. %d, theta %g%s%s;\n  %d of each head's %d dimensions rotate; nothing is "
           "added to the embeddings\n",
           c->rotary_interleaved ? "2i, 2i+1" : "i, i + r/2", position, r, r / 2 - 1, theta,
           local ? " (a local layer's)" : "", c->rotary_ntk_factor ? " before NTK scaling" : "", r,
           dk);
    tensor_line(ev, "queries after the rotation");
    printf("  Q of head %d, rotated:\n", w->opt->head);
    token_rows(w, head_rows(w, ev), dk);
}

/* Distances j - i shown each side of 0 in the relative bias. */
#define SHOWN_DISTANCES 6

/* The relative position bias: the buckets, and the chosen head's bias per
 * distance j - i, from a [H, 2T - 1] event. */
static void explain_relative(walkthrough *w, const tf_trace_event *ev)
{
    const tf_config *c = &w->cfg;
    const int span = (int)ev->dims[1], center = span / 2, h = w->opt->head;
    const int shown = center < SHOWN_DISTANCES ? center : SHOWN_DISTANCES;
    heading(w, "Relative position bias: each head's score depends on j - i");
    printf("  score(i, j) += bias[bucket(j - i), h] from one (%d, %d) table every layer shares;\n"
           "  |j - i| < %d a bucket each, then logarithmic buckets up to %d, keys after the query\n"
           "  in the other half (MPNet's relative_position_bucket); computed per distance, never\n"
           "  a (%d, %d) table\n",
           (int)c->relative_buckets, (int)c->n_heads, (int)config_relative_exact(c),
           (int)config_relative_max_distance(c), w->T, w->T);
    tensor_line(ev, "each head's bias for each j - i");
    printf("  head %d:\n", h);
    for (int d = -shown; d <= shown; d++)
        printf("    j - i = %+3d  %8.4f\n", d, (double)ev->data[(size_t)h * span + center + d]);
}

/* A local layer's window, said before its scores. */
static void explain_window(const walkthrough *w, int32_t layer)
{
    const tf_config *c = &w->cfg;
    if (config_layer_is_local(c, layer))
        printf("  layer %d is local: query i sees keys |i - j| <= %d only (-inf elsewhere),\n"
               "  computed for those keys alone\n",
               (int)layer, (int)c->attn_window / 2);
}

static void explain_attention(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = w->cfg.d_model, H = w->cfg.n_heads, dk = D / H, h = w->opt->head, T = w->T;
    if (!strcmp(name, "attn.q")) {
        heading(w, "Q, K, V: three independent projections, split into heads");
        printf("  Q = x W_Q^T + b_Q: (%d, %d) . (%d, %d) -> (%d, %d), i.e. %d heads of d_k = %d/%d "
               "= %d:\n  per head (%d, %d) . (%d, %d) -> (%d, %d); K and V alike with W_K, W_V\n",
               T, D, D, D, T, D, H, D, H, dk, T, D, D, dk, T, dk);
        tensor_line(ev, "queries: what each token looks for");
        printf("  Q of head %d:\n", h);
        token_rows(w, head_rows(w, ev), dk);
    } else if (!strcmp(name, "attn.k")) {
        tensor_line(ev, "keys: what each token can be matched on");
    } else if (!strcmp(name, "attn.v")) {
        tensor_line(ev, "values: what each token passes on");
        printf("  V of head %d:\n", h);
        token_rows(w, head_rows(w, ev), dk);
    } else if (!strcmp(name, "attn.q_norm")) {
        heading(w, "QK norm: a LayerNorm on Q and one on K");
        printf("  each token's whole Q row (%d values, all heads together) normalised and scaled\n"
               "  by q_norm, K's by k_norm, before the heads meet; V unchanged\n",
               D);
        tensor_line(ev, "queries after their LayerNorm");
        printf("  Q of head %d, normalised:\n", h);
        token_rows(w, head_rows(w, ev), dk);
    } else if (!strcmp(name, "attn.k_norm")) {
        tensor_line(ev, "keys after theirs, which the scores use");
    } else if (!strcmp(name, "attn.q_rotated")) {
        explain_rotary(w, ev);
    } else if (!strcmp(name, "attn.k_rotated")) {
        tensor_line(ev, "keys rotated alike: Q_i . K_j now depends on i - j");
    } else if (!strcmp(name, "attn.alibi_slopes")) {
        heading(w, "ALiBi: a linear penalty on distance, per head");
        printf("  score(i, j) -= m_h |i - j|, computed on the fly (never a (%d, %d) table);\n"
               "  no position is added to the embeddings\n",
               T, T);
        tensor_line(ev, "each head's slope m_h:");
        value_row("m_h", ev->data, H);
    } else if (!strcmp(name, "attn.relative_bias")) {
        explain_relative(w, ev);
    } else if (!strcmp(name, "attn.scores")) {
        heading(w, "Scaled dot-product scores");
        printf(
            "  S = Q K^T / sqrt(d_k): (%d, %d) . (%d, %d) -> (%d, %d) per head; scale 1/sqrt(%d) "
            "= %.4f\n  (without it the dot products grow with d_k and softmax saturates)\n",
            T, dk, dk, T, T, T, dk, 1.0 / sqrt((double)dk));
        explain_window(w, ev->layer);
        tensor_line(ev, "");
        printf("  scores of head %d (row = query, column = key):\n", h);
        token_table(w, ev->data + (size_t)h * T * T, 0);
    } else if (!strcmp(name, "attn.weights")) {
        heading(w, "Softmax of each row: attention weights");
        printf("  weights[i][j] = exp(S[i][j] - max_i) / sum_j exp(S[i][j] - max_i); "
               "every row sums to 1\n");
        tensor_line(ev, "");
        printf("  attention weights of head %d:\n", h);
        token_table(w, ev->data + (size_t)h * T * T, 1);
    } else if (!strcmp(name, "attn.context")) {
        heading(w, "Context: weights . V, heads concatenated");
        printf("  per head (%d, %d) . (%d, %d) -> (%d, %d); %d heads side by side -> (%d, %d x %d) "
               "= (%d, %d)\n",
               T, T, T, dk, T, dk, H, T, H, dk, T, D);
        tensor_line(ev, "concatenated along the feature dimension");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "attn.out")) {
        heading(w, "Output projection W_O");
        printf("  (%d, %d) . (%d, %d) -> (%d, %d)\n", T, D, D, D, T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    }
}

static void explain_block(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = w->cfg.d_model, F = w->cfg.d_ff, T = w->T;
    const int pre = w->cfg.norm_placement == TF_NORM_PRE;
    const char *act = tf_activation_name(w->cfg.activation);
    if (!strcmp(name, "norm1") || !strcmp(name, "norm2")) {
        heading(w,
                name[4] == '1' ? "Pre-norm: LayerNorm(x) goes into the attention"
                               : "Pre-norm: LayerNorm(x) goes into the feed-forward network");
        tensor_line(ev, "each row: mean 0, standard deviation 1 (then scaled):");
        row_stats(w, ev->data, D);
    } else if (!strcmp(name, "add_norm1")) {
        heading(w,
                pre ? "Residual: x + attention output"
                    : "Add & Norm: LayerNorm(x + attention output)");
        if (pre) {
            tensor_line(ev, "(pre-norm adds without normalising)");
            token_rows(w, ev->data, D);
        } else {
            printf("  (%d, %d) + (%d, %d) -> LayerNorm over the last dimension (%d values per "
                   "token)\n",
                   T, D, T, D, D);
            tensor_line(ev, "each row now has mean 0 and standard deviation 1:");
            row_stats(w, ev->data, D);
        }
    } else if (!strcmp(name, "add_norm1b")) {
        heading(w, "Add & Norm once more: LayerNorm(x + that), x the layer's input");
        printf("  (%d, %d) + (%d, %d) -> LayerNorm (norm1b), the feed-forward network's input\n", T,
               D, T, D);
        tensor_line(ev, "");
        row_stats(w, ev->data, D);
    } else if (!strcmp(name, "ffn.up")) {
        heading(w, "Gated feed-forward network, per token: up and gate, act(gate) * up, down");
        printf("  (%d, %d) . (%d, 2 x %d) -> up (%d, %d) and gate (%d, %d), one product\n", T, D, D,
               F, T, F, T, F);
        tensor_line(ev, "up: the values that pass");
        token_rows(w, ev->data, F);
    } else if (!strcmp(name, "ffn.gate")) {
        tensor_line(ev, "gate, before its activation: how much of each passes");
        token_rows(w, ev->data, F);
    } else if (!strcmp(name, "ffn.hidden")) {
        if (w->cfg.ffn_gated) {
            printf("  hidden = %s(gate) * up, element-wise\n", act);
        } else {
            heading(w, "Feed-forward network, per token: up, activation, down");
            printf("  (%d, %d) . (%d, %d) -> (%d, %d), then %s element-wise\n", T, D, D, F, T, F,
                   act);
        }
        tensor_line(ev, "after the activation");
        token_rows(w, ev->data, F);
    } else if (!strcmp(name, "ffn.out")) {
        printf("  (%d, %d) . (%d, %d) -> (%d, %d)\n", T, F, F, D, T, D);
        tensor_line(ev, "back to d_model");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "add_norm2")) {
        heading(
            w, pre ? "Residual again: the layer's output" : "Add & Norm again: the layer's output");
        printf("  %s: (%d, %d), the same shape that went in, so layers stack\n",
               pre ? "x + FFN(LN(x))" : "LayerNorm(x + FFN(x))", T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    }
}

static void explain_event(walkthrough *w, const tf_trace_event *ev)
{
    const char *name = ev->name;
    if (ev->layer >= 0) { /* drop "layers.<l>." */
        const char *dot = strchr(ev->name + strlen("layers."), '.');
        name = dot ? dot + 1 : ev->name;
    }
    if (ev->layer < 0 && !strcmp(name, "final_norm")) {
        heading(w, "Final LayerNorm (pre-norm stacks)");
        tensor_line(ev, "");
        row_stats(w, ev->data, w->cfg.d_model);
    } else if (ev->layer < 0 && !strcmp(name, "pooler")) {
        heading(w, "Pooler: tanh(W_p h[CLS] + b_p), one vector per sentence");
        tensor_line(ev, "");
        value_row("[CLS]", ev->data, w->cfg.d_model);
    } else if (ev->layer < 0) {
        explain_embedding(w, ev, name);
    } else if (ev->layer != w->opt->layer) {
        if (!strcmp(name, "add_norm2"))
            printf("\n  (layer %d: the same steps; output %s [1, %d, %d])\n", (int)ev->layer,
                   ev->name, w->T, w->cfg.d_model);
    } else if (!strncmp(name, "attn.", 5)) {
        explain_attention(w, ev, name);
    } else {
        explain_block(w, ev, name);
    }
}

static void on_event(const tf_trace_event *ev, void *user)
{
    walkthrough *w = user;
    recording_add(&w->rec, ev);
    if (w->print)
        explain_event(w, ev);
}

/* ---- Tokens ----------------------------------------------------------------- */

/* The id of the word text[0..len) in the built-in vocabulary, or UNK. */
static int32_t builtin_id(const char *word, size_t len)
{
    for (int32_t i = 0; i < VOCAB; i++)
        if (strlen(vocabulary[i]) == len && strncasecmp(word, vocabulary[i], len) == 0)
            return i;
    return UNK;
}

/* The length of the next whitespace-separated word, *p moved to its start;
 * 0 at the end of the text. */
static size_t next_word(const char **p)
{
    *p += strspn(*p, " \t\n");
    return strcspn(*p, " \t\n");
}

/* Appends token id, text[0..len), to ids[w->T] and w->tokens; -1 after a
 * message when out of memory. */
static int add_token(walkthrough *w, int32_t *ids, int32_t id, const char *text, size_t len)
{
    char *token = strndup(text, len);
    if (!token) {
        cli_error("explain", "out of memory for the tokens");
        return -1;
    }
    ids[w->T] = id;
    w->tokens[w->T] = token;
    snprintf(w->labels[w->T], sizeof w->labels[w->T], "%s", token);
    w->T++;
    return 0;
}

static int too_many_tokens(int n)
{
    cli_error("explain", "--text: the text has %d tokens; explain shows at most %d", n, MAX_TOKENS);
    return -1;
}

/* Whitespace-separated words of the built-in vocabulary, with [CLS] and
 * [SEP] added if the text lacks them; tokens are the words as written. 0,
 * or -1 after a message (more than MAX_TOKENS). */
static int builtin_tokens(walkthrough *w, int32_t *ids, const char *text)
{
    int words = 0;
    int32_t first = -1, last = -1;
    size_t len;
    for (const char *p = text; (len = next_word(&p)) > 0; p += len, words++) {
        last = builtin_id(p, len);
        first = words ? first : last;
    }
    if (words + (first != CLS) + (last != SEP) > MAX_TOKENS)
        return too_many_tokens(words + (first != CLS) + (last != SEP));
    int rc = first != CLS ? add_token(w, ids, CLS, vocabulary[CLS], strlen(vocabulary[CLS])) : 0;
    for (const char *p = text; rc == 0 && (len = next_word(&p)) > 0; p += len)
        rc = add_token(w, ids, builtin_id(p, len), p, len);
    if (rc == 0 && last != SEP)
        rc = add_token(w, ids, SEP, vocabulary[SEP], strlen(vocabulary[SEP]));
    return rc;
}

/* WordPiece tokens of text: 0, or -1 after a message. */
static int wordpiece_tokens(walkthrough *w, int32_t *ids, const tf_tokenizer *tok, const char *text)
{
    tf_encoding *e;
    const tf_status s = tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e);
    if (s) {
        cli_error("explain", "--text: %s", tf_last_error());
        return -1;
    }
    const int n = tf_encoding_lengths(e)[0];
    int rc = n <= MAX_TOKENS ? 0 : too_many_tokens(n);
    for (int t = 0; rc == 0 && t < n; t++) {
        const int32_t id = tf_encoding_ids(e)[t];
        const char *token = tf_tokenizer_id_to_token(tok, id);
        rc = add_token(w, ids, id, token, strlen(token));
    }
    tf_encoding_destroy(e);
    return rc;
}

/* ---- Options ----------------------------------------------------------------- */

static void explain_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc explain [--text TEXT] [--layer L] [--head H]\n"
            "                     [--d-model 512 --heads 8 --d-ff 2048 --layers 1 --seed 0]\n"
            "                     [--model FILE_OR_DIR [load options]]\n"
            "                     [--vocab vocab.txt [--cased]]\n"
            "                     [--heatmap FILE.png | --dump DIR | --compare DIR [--tol 1e-4]]\n"
            "                     [--html PAGE.html]\n"
            "       tfenc explain --model VISION_DIR --image FILE [--head H] [--html PAGE.html]\n"
            "       tfenc explain --worked-example\n"
            "load options:\n");
    cli_load_options_usage(out, "  ");
    fprintf(out,
            "Runs an encoder (the tutorial's model, or --model) on the text and prints every\n"
            "step with its shape and values. --heatmap draws layer L's attention weights,\n"
            "--dump writes every intermediate as .npy, --compare checks another\n"
            "implementation's .npy files against them, --html writes the walkthrough as\n"
            "one self-contained page (diagram, heatmaps, plots; nothing fetched).\n"
            "With --image, an image model's folder (ViT, CLIP, SigLIP) on an image: the\n"
            "preprocessing, the patch grid, every layer's tensors and the attention over\n"
            "the image (--html draws it on the image, with the attention rollout).\n"
            "The text may have up to %d tokens.\n"
            "Without --vocab, a small built-in vocabulary is used; its words: ",
            MAX_TOKENS);
    for (int i = 4; i < VOCAB; i++)
        fprintf(out, "%s%s", vocabulary[i], i + 1 < VOCAB ? " " : "\n");
}

/* Options that take a value; 1 if flag was one, -1 on a bad value, 0 for
 * another flag. */
static int parse_valued(cli_args *a, explain_options *o, const char *flag)
{
    const cli_string_flag strings[] = {
        {"--text", "a text", &o->text},
        {"--model", "a model file or directory", &o->model},
        {"--vocab", "a vocab.txt", &o->vocab},
        {"--heatmap", "an output .png file", &o->heatmap},
        {"--dump", "an output directory", &o->dump},
        {"--compare", "a directory of .npy files", &o->compare},
        {"--html", "an output .html file", &o->html},
        {"--image", "an image file (JPEG, PNG or WebP)", &o->image},
    };
    const cli_int_flag sizes[] = {
        /* of the tutorial's model */
        {"--d-model", 1, TF_MAX_D_MODEL, &o->d_model},
        {"--heads", 1, TF_MAX_D_MODEL, &o->heads},
        {"--d-ff", 1, TF_MAX_D_FF, &o->d_ff},
        {"--layers", 1, TF_MAX_LAYERS, &o->layers},
    };
    const cli_int_flag shown[] = {
        {"--layer", 0, TF_MAX_LAYERS - 1, &o->layer},
        {"--head", 0, TF_MAX_D_MODEL - 1, &o->head},
    };
    int rc;
    if ((rc = cli_string_table(a, flag, CLI_TABLE(strings))) ||
        (rc = cli_int_table(a, flag, CLI_TABLE(shown))))
        return rc;
    if ((rc = cli_int_table(a, flag, CLI_TABLE(sizes)))) {
        o->sized = 1;
        return rc;
    }
    if (!strcmp(flag, "--seed")) {
        o->sized = 1;
        return cli_u64(a, flag, &o->seed);
    }
    if (!strcmp(flag, "--tol"))
        return cli_number(a, flag, CLI_MIN_POSITIVE, MAX_TOL, &o->tol);
    return cli_load_option(a, flag, &o->load);
}

static int take_explain(cli_args *a, const char *arg, void *user)
{
    explain_options *o = user;
    o->layer_given |= !strcmp(arg, "--layer");
    if (!strcmp(arg, "--worked-example") || !strcmp(arg, "--cased")) {
        *(arg[2] == 'w' ? &o->worked_example : &o->cased) = 1;
        return 1;
    }
    return parse_valued(a, o, arg);
}

/* 1 when a load option changed *load from its defaults. */
static int load_options_given(const tf_load_options *load)
{
    tf_load_options d;
    tf_load_options_init(&d);
    return load->n_heads != d.n_heads || load->activation != d.activation ||
        load->norm_placement != d.norm_placement || load->layer_norm_eps != d.layer_norm_eps;
}

/* --image's command line: a --model, none of the text's options; 0, or -1
 * after a message. */
static int check_image_options(const cli_args *a, const explain_options *o)
{
    const char *text_only = o->text    ? "--text"
        : o->vocab                     ? "--vocab"
        : o->heatmap                   ? "--heatmap"
        : o->dump                      ? "--dump"
        : o->compare                   ? "--compare"
        : o->layer_given               ? "--layer"
        : o->worked_example            ? "--worked-example"
        : o->sized                     ? "--d-model, --heads, --d-ff, --layers or --seed"
        : load_options_given(&o->load) ? "a load option"
                                       : NULL;
    if (!o->model) {
        cli_error(a->command, "--image: give the image model's folder with --model");
        return -1;
    }
    if (text_only) {
        cli_error(a->command,
                  "--image: %s is for a text; an image takes --model, --head "
                  "and --html",
                  text_only);
        return -1;
    }
    return 0;
}

/* 0 with *o filled; 1 after --help; -1 after a message. */
static int parse_options(int argc, char **argv, explain_options *o)
{
    cli_args a = cli_args_start("explain", explain_usage, argc, argv);
    *o = (explain_options){.d_model = 512, .heads = 8, .d_ff = 2048, .layers = 1, .tol = 1e-4};
    tf_load_options_init(&o->load);
    const int rc = cli_parse(&a, take_explain, o);
    if (rc)
        return rc;
    if (o->model && o->sized) {
        cli_error(a.command,
                  "--d-model, --heads, --d-ff, --layers and --seed describe the "
                  "tutorial's model; --model brings its own");
        return -1;
    }
    if (o->image)
        return check_image_options(&a, o);
    if (!o->text)
        o->text = o->vocab ? "I love NLP" : "[CLS] I love NLP [SEP]";
    return 0;
}

/* ---- The run ------------------------------------------------------------------ */

/* The encoder: --model, or the tutorial's with the given sizes. */
static tf_status make_encoder(const explain_options *o, const tf_tokenizer *tok, tf_encoder **enc)
{
    if (o->model)
        return tf_encoder_load(o->model, &o->load, enc);
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = o->d_model, cfg.n_heads = o->heads, cfg.d_ff = o->d_ff;
    cfg.n_layers = o->layers, cfg.seed = o->seed;
    cfg.vocab_size = tok ? tf_tokenizer_vocab_size(tok) : VOCAB;
    return tf_encoder_create(&cfg, enc);
}

/* N(0, 1) vectors for a model without an embedding table. */
static float *draw_vectors(int T, int D, uint64_t seed)
{
    float *x = malloc(sizeof(float) * (size_t)T * (size_t)D);
    unsigned long long s = seed * 6364136223846793005ull + 1;
    for (size_t i = 0; x && i < (size_t)T * (size_t)D; i++) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = ((double)(s >> 11) + 0.5) * 0x1.0p-53;
        }
        x[i] = (float)(sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
    }
    return x;
}

static void print_header(const walkthrough *w, const int32_t *ids)
{
    const tf_config *c = &w->cfg;
    printf("libtfenc %s: a Transformer encoder, step by step\n", tf_version_string());
    printf("model: %s%s", w->opt->model ? w->opt->model : "the tutorial's",
           w->opt->model ? "\n       " : ", ");
    printf("d_model %d, %d heads (d_k %d), d_ff %d, %d layer%s,\n", (int)c->d_model,
           (int)c->n_heads, (int)(c->d_model / c->n_heads), (int)c->d_ff, (int)c->n_layers,
           c->n_layers > 1 ? "s" : "");
    printf("       %s, %s-norm, %s%s", tf_activation_name(c->activation),
           tf_norm_placement_name(c->norm_placement),
           c->position == TF_POSITION_NONE ? "no positional encoding"
                                           : tf_position_name(c->position),
           c->position == TF_POSITION_NONE ? "" : " positions");
    if (!w->opt->model)
        printf(", weights drawn from seed %" PRIu64, w->opt->seed);
    printf("\ninput: \"%s\" -> %d tokens:", w->opt->text, w->T);
    for (int t = 0; t < w->T; t++)
        printf(" %s=%d", w->tokens[t], (int)ids[t]);
    printf("\n");
}

/* The forward pass with the walkthrough (or just the recording). */
static tf_status run(walkthrough *w, const tf_encoder *enc, const int32_t *ids, float *out)
{
    float *vectors = NULL;
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = w->T, a.output = out;
    a.trace = on_event, a.trace_user_data = w;
    if (w->cfg.vocab_size > 0) {
        a.input_ids = ids;
    } else {
        vectors = draw_vectors(w->T, w->cfg.d_model, w->opt->seed);
        a.input_embeds = vectors;
    }
    tf_status s = vectors || a.input_ids ? tf_encoder_forward(enc, &a) : TF_ERR_OUT_OF_MEMORY;
    if (s == TF_OK && w->rec.out_of_memory)
        s = TF_ERR_OUT_OF_MEMORY;
    free(vectors);
    return s;
}

/* --html: the page of the recorded events; 0, or CLI_FAILED after a
 * message. */
static int write_html(const walkthrough *w, const int32_t *ids)
{
    const explain_options *o = w->opt;
    char err[600];
    worked_example example;
    retrieval_view view = {.kind = -1};
    const explain_page page = {
        .rec = &w->rec,
        .cfg = &w->cfg,
        .model = o->model,
        .text = o->text,
        .tokens = (const char *const *)w->tokens,
        .ids = ids,
        .T = w->T,
        .layer = o->layer,
        .head = o->head,
        .example = &example,
        .retrieval = &view,
    };
    const int rc = worked_example_compute(&example, err, sizeof err) != 0 ||
        (o->model && retrieval_view_build(o->model, o->text, &view, err, sizeof err) != 0) ||
        explain_html_write(o->html, &page, err, sizeof err) != 0;
    retrieval_view_free(&view);
    if (rc) {
        cli_error("explain", "--html: %s", err);
        return CLI_FAILED;
    }
    printf("wrote %s: the walkthrough of layer %d of %d, %d tokens, %zu traced tensors\n", o->html,
           o->layer, (int)w->cfg.n_layers, w->T, w->rec.n);
    return 0;
}

/* --heatmap, --dump, --compare, --html on the recorded events. */
static int actions(const walkthrough *w, const int32_t *ids)
{
    const explain_options *o = w->opt;
    int rc = 0;
    if (o->html && write_html(w, ids) != 0)
        return CLI_FAILED;
    if (o->heatmap) {
        char name[64], err[512];
        snprintf(name, sizeof name, "layers.%d.attn.weights", o->layer);
        const recorded *weights = recording_find(&w->rec, name);
        if (heatmap_write(o->heatmap, weights, (const char(*)[16])w->labels, o->layer, err,
                          sizeof err) != 0) {
            cli_error("explain", "%s", err);
            return CLI_FAILED;
        }
        int width, height;
        heatmap_size(w->T, w->cfg.n_heads, &width, &height);
        printf("wrote %s: %d heads of layer %d, %d x %d pixels\n", o->heatmap, (int)w->cfg.n_heads,
               o->layer, width, height);
    }
    if (o->dump) {
        const char *model = o->model ? o->model : "the tutorial's";
        const size_t size = strlen(model) + strlen(o->text) + sizeof "model: ; text: ";
        char *description = malloc(size);
        if (description)
            snprintf(description, size, "model: %s; text: %s", model, o->text);
        else
            cli_error("explain", "--dump %s: out of memory", o->dump);
        rc = !description ||
            dump_write(o->dump, &w->rec, (const char *const *)w->tokens, w->T, description);
        free(description);
        if (rc)
            return CLI_FAILED;
    }
    if (o->compare)
        rc = dump_compare(o->compare, &w->rec, o->tol) ? CLI_FAILED : 0;
    return rc;
}

/* --layer and --head within the model's; -1 after a message. */
static int check_layer_head(const explain_options *o, const tf_config *cfg)
{
    char expected[96], got[16];
    const int32_t values[2] = {o->layer, o->head}, counts[2] = {cfg->n_layers, cfg->n_heads};
    for (int i = 0; i < 2; i++) {
        if (values[i] < counts[i])
            continue;
        snprintf(expected, sizeof expected, "an integer 0..%d (the model's %s)", (int)counts[i] - 1,
                 i ? "heads" : "layers");
        snprintf(got, sizeof got, "%d", (int)values[i]);
        return cli_refuse("explain", i ? "--head" : "--layer", expected, got);
    }
    return 0;
}

/* A retrieval folder's steps after the encoder's (explain_retrieval.h); 0,
 * or CLI_FAILED after a message. */
static int explain_head(walkthrough *w)
{
    retrieval_view v;
    char err[512];
    if (!w->opt->model ||
        retrieval_view_build(w->opt->model, w->opt->text, &v, err, sizeof err) != 0) {
        if (w->opt->model)
            cli_error("explain", "%s", err);
        return w->opt->model ? CLI_FAILED : 0;
    }
    retrieval_view_print(&v, &w->step, w->color);
    retrieval_view_free(&v);
    return 0;
}

/* The walkthrough, or the actions, of an encoder on the text's tokens. */
static int explain(walkthrough *w, const tf_encoder *enc, const int32_t *ids)
{
    float *out = malloc(sizeof(float) * (size_t)w->T * (size_t)w->cfg.d_model); /* [T, D] */
    tf_status s = out ? TF_OK : TF_ERR_OUT_OF_MEMORY;
    int rc = 0;
    if (s == TF_OK && w->print)
        print_header(w, ids);
    if (s == TF_OK)
        s = run(w, enc, ids, out);
    if (s) {
        cli_error("explain", "%s", tf_last_error());
        rc = CLI_FAILED;
    } else if (w->print) {
        heading(w, "Output of the encoder");
        printf("  (%d, %d): one %d-dimensional vector per token, each now mixing in the whole "
               "sentence\n",
               w->T, (int)w->cfg.d_model, (int)w->cfg.d_model);
        token_rows(w, out, w->cfg.d_model);
        rc = explain_head(w);
    } else {
        rc = actions(w, ids);
    }
    free(out);
    return rc;
}

/* A text's walkthrough of an image model's folder is refused, naming what
 * runs it: -1 after that message, else 0 (the loader says what else is
 * wrong with the folder). */
static int refuse_image_model(const char *model)
{
    int32_t is_image = 0;
    if (tf_model_is_image(model, &is_image) != TF_OK || !is_image)
        return 0;
    cli_error("explain",
              "--model %s: an image model (a vision tower); explain it on an image with "
              "--image FILE",
              model);
    return -1;
}

int tfenc_explain(int argc, char **argv)
{
    explain_options opt;
    const int parsed = parse_options(argc, argv, &opt);
    if (parsed)
        return cli_parse_status(parsed);
    if (opt.worked_example)
        return tfenc_worked_example();
    if (opt.image) {
        const explain_image_options io = {opt.model, opt.image, opt.html, opt.head};
        return explain_image(&io);
    }
    if (opt.model && refuse_image_model(opt.model) != 0)
        return CLI_USAGE;
    walkthrough w = {.opt = &opt, .color = isatty(STDOUT_FILENO)};
    w.print = !opt.heatmap && !opt.dump && !opt.compare && !opt.html;
    tf_tokenizer *tok = NULL;
    tf_encoder *enc = NULL;
    int32_t ids[MAX_TOKENS];
    tf_status s = TF_OK;
    if (opt.vocab) {
        tf_tokenizer_options to;
        tf_tokenizer_options_init(&to);
        to.lowercase = !opt.cased;
        s = tf_tokenizer_load(opt.vocab, &to, &tok);
    }
    if (s == TF_OK)
        s = make_encoder(&opt, tok, &enc);
    if (s == TF_OK)
        s = tf_encoder_get_config(enc, (tf_config_init(&w.cfg), &w.cfg));
    int rc = 0;
    if (s) {
        cli_error("explain", "%s", tf_last_error());
        rc = CLI_FAILED;
    } else if (check_layer_head(&opt, &w.cfg) != 0 ||
               (tok ? wordpiece_tokens(&w, ids, tok, opt.text)
                    : builtin_tokens(&w, ids, opt.text)) != 0) {
        rc = CLI_USAGE;
    } else {
        rc = explain(&w, enc, ids);
    }
    for (int t = 0; t < w.T; t++)
        free(w.tokens[t]);
    recording_free(&w.rec);
    tf_tokenizer_destroy(tok);
    tf_encoder_destroy(enc);
    return rc;
}
