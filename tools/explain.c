/* explain.c — `tfenc explain`: the tutorial's encoder run on a sentence,
 * printed step by step from the library's trace events: each tensor's name,
 * its exact shape, the shape algebra of each product and real values. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "tfenc.h"

/* A small built-in vocabulary (the WordPiece tokenizer comes later):
 * words are lower-cased and looked up whole; others become [UNK]. */
static const char *const vocabulary[] = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "i",      "love",      "nlp",    "the",
    "a",     "an",    "model", "is",    "all",    "you",       "need",   "attention",
    "transformer",    "encoder",        "reads",  "every",     "word",   "at",
    "once",  "we",    "learn", "by",    "seeing", "numbers",   "hello",  "world",
    "sentence",       "."};
enum { VOCAB = sizeof vocabulary / sizeof vocabulary[0], UNK = 1, CLS = 2, SEP = 3 };
enum { MAX_TOKENS = 64, SHOWN_VALUES = 6, SHOWN_COLUMNS = 10 };

typedef struct explain_options {
    int d_model, heads, d_ff, layers, layer, head;
    unsigned long long seed;
    const char *text;
} explain_options;

typedef struct walkthrough {
    const explain_options *opt;
    char labels[MAX_TOKENS][16];
    int T;
    int step;
    int color;
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
    printf("    %-8s [", label);
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
        printf("    %-8s", w->labels[i]);
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

/* ---- The walkthrough, one trace event at a time --------------------------- */

/* The event's name without "layers.<l>." */
static const char *local_name(const tf_trace_event *ev)
{
    if (ev->layer < 0)
        return ev->name;
    const char *dot = strchr(ev->name + strlen("layers."), '.');
    return dot ? dot + 1 : ev->name;
}

static void explain_embedding(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = w->opt->d_model;
    if (strcmp(name, "embed.token") == 0) {
        heading(w, "Token embedding: each token id picks one row of the table");
        printf("  table (vocab, d_model) = (%d, %d); %d tokens -> (%d, %d)\n", VOCAB, D, w->T,
               w->T, D);
        tensor_line(ev, "batch of 1 sentence");
        token_rows(w, ev->data, D);
    } else if (strcmp(name, "embed.position") == 0) {
        heading(w, "Positional encoding: fixed sin/cos waves, one row per position");
        printf("  PE(t, 2i) = sin(t / 10000^(2i/%d)),  PE(t, 2i+1) = cos(t / 10000^(2i/%d))\n", D,
               D);
        tensor_line(ev, "computed for any length: it extrapolates");
        char label[16];
        for (int t = 0; t < w->T; t++) {
            snprintf(label, sizeof label, "t=%d", t);
            value_row(label, ev->data + (size_t)t * D, D);
        }
    } else if (strcmp(name, "embed.sum") == 0) {
        heading(w, "Input x = token embedding + positional encoding");
        printf("  (%d, %d) + (%d, %d) -> (%d, %d): added element-wise, not concatenated,\n"
               "  so both must have the same shape\n",
               w->T, D, w->T, D, w->T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    }
}

/* Rows of head h from a [1, H, T, d_k] event. */
static const float *head_rows(const walkthrough *w, const tf_trace_event *ev)
{
    return ev->data + (size_t)w->opt->head * w->T * ev->dims[3];
}

static void explain_attention(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = w->opt->d_model, H = w->opt->heads, dk = D / H, h = w->opt->head;
    const int T = w->T;
    if (strcmp(name, "attn.q") == 0) {
        heading(w, "Q, K, V: three independent projections, split into heads");
        printf("  Q = x W_Q^T + b_Q: (%d, %d) . (%d, %d) -> (%d, %d), i.e. %d heads of d_k = %d/%d "
               "= %d:\n  per head (%d, %d) . (%d, %d) -> (%d, %d); K and V alike with W_K, W_V\n",
               T, D, D, D, T, D, H, D, H, dk, T, D, D, dk, T, dk);
        tensor_line(ev, "queries: what each token looks for");
        printf("  Q of head %d:\n", h);
        token_rows(w, head_rows(w, ev), dk);
    } else if (strcmp(name, "attn.k") == 0) {
        tensor_line(ev, "keys: what each token can be matched on");
    } else if (strcmp(name, "attn.v") == 0) {
        tensor_line(ev, "values: what each token passes on");
        printf("  V of head %d:\n", h);
        token_rows(w, head_rows(w, ev), dk);
    } else if (strcmp(name, "attn.scores") == 0) {
        heading(w, "Scaled dot-product scores");
        printf("  S = Q K^T / sqrt(d_k): (%d, %d) . (%d, %d) -> (%d, %d) per head; scale 1/sqrt(%d) "
               "= %.4f\n  (without it the dot products grow with d_k and softmax saturates)\n",
               T, dk, dk, T, T, T, dk, 1.0 / sqrt((double)dk));
        tensor_line(ev, "");
        printf("  scores of head %d (row = query, column = key):\n", h);
        token_table(w, ev->data + (size_t)h * T * T, 0);
    } else if (strcmp(name, "attn.weights") == 0) {
        heading(w, "Softmax of each row: attention weights");
        printf("  weights[i][j] = exp(S[i][j] - max_i) / sum_j exp(S[i][j] - max_i); "
               "every row sums to 1\n");
        tensor_line(ev, "");
        printf("  attention weights of head %d:\n", h);
        token_table(w, ev->data + (size_t)h * T * T, 1);
    } else if (strcmp(name, "attn.context") == 0) {
        heading(w, "Context: weights . V, heads concatenated");
        printf("  per head (%d, %d) . (%d, %d) -> (%d, %d); %d heads side by side -> (%d, %d x %d) "
               "= (%d, %d)\n",
               T, T, T, dk, T, dk, H, T, H, dk, T, D);
        tensor_line(ev, "concatenated along the feature dimension");
        token_rows(w, ev->data, D);
    } else if (strcmp(name, "attn.out") == 0) {
        heading(w, "Output projection W_O");
        printf("  (%d, %d) . (%d, %d) -> (%d, %d)\n", T, D, D, D, T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
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
        printf("    %-8s mean %+.6f  std %.6f\n", w->labels[t], mean, sqrt(var));
    }
}

static void explain_block(walkthrough *w, const tf_trace_event *ev, const char *name)
{
    const int D = w->opt->d_model, F = w->opt->d_ff, T = w->T;
    if (strcmp(name, "add_norm1") == 0) {
        heading(w, "Add & Norm: LayerNorm(x + attention output)");
        printf("  (%d, %d) + (%d, %d) -> LayerNorm over the last dimension (%d values per token)\n",
               T, D, T, D, D);
        tensor_line(ev, "each row now has mean 0 and standard deviation 1:");
        row_stats(w, ev->data, D);
    } else if (strcmp(name, "ffn.hidden") == 0) {
        heading(w, "Feed-forward network, per token: up, GELU, down");
        printf("  (%d, %d) . (%d, %d) -> (%d, %d), then GELU(z) = z . Phi(z) element-wise\n", T, D,
               D, F, T, F);
        tensor_line(ev, "after GELU");
        token_rows(w, ev->data, F);
    } else if (strcmp(name, "ffn.out") == 0) {
        printf("  (%d, %d) . (%d, %d) -> (%d, %d)\n", T, F, F, D, T, D);
        tensor_line(ev, "back to d_model");
        token_rows(w, ev->data, D);
    } else if (strcmp(name, "add_norm2") == 0) {
        heading(w, "Add & Norm again: the layer's output");
        printf("  LayerNorm(x + FFN(x)): (%d, %d), the same shape that went in, so layers stack\n",
               T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    }
}

static void on_event(const tf_trace_event *ev, void *user)
{
    walkthrough *w = user;
    const char *name = local_name(ev);
    if (ev->layer < 0) {
        explain_embedding(w, ev, name);
    } else if (ev->layer != w->opt->layer) {
        if (strcmp(name, "add_norm2") == 0)
            printf("\n  (layer %d: the same steps; output %s [1, %d, %d])\n", (int)ev->layer,
                   ev->name, w->T, w->opt->d_model);
    } else if (strncmp(name, "attn.", 5) == 0) {
        explain_attention(w, ev, name);
    } else {
        explain_block(w, ev, name);
    }
}

/* ---- Tokens, options, and the run ---------------------------------------- */

static int lookup(const char *word)
{
    for (int i = 0; i < VOCAB; i++)
        if (strcasecmp(word, vocabulary[i]) == 0)
            return i;
    return UNK;
}

/* Splits text on whitespace into ids and labels (the words as written);
 * adds [CLS] in front and [SEP] at the end if the text lacks them. */
static int tokenize(walkthrough *w, int32_t *ids, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *tok = strtok(buf, " \t\n"); tok && n < MAX_TOKENS - 2; tok = strtok(NULL, " \t\n")) {
        ids[n] = lookup(tok);
        snprintf(w->labels[n], sizeof w->labels[n], "%s", tok);
        n++;
    }
    if (n == 0 || ids[0] != CLS) {
        memmove(ids + 1, ids, (size_t)n * sizeof *ids);
        memmove(w->labels[1], w->labels[0], (size_t)n * sizeof w->labels[0]);
        ids[0] = CLS;
        snprintf(w->labels[0], sizeof w->labels[0], "%s", vocabulary[CLS]);
        n++;
    }
    if (ids[n - 1] != SEP) {
        ids[n] = SEP;
        snprintf(w->labels[n], sizeof w->labels[n], "%s", vocabulary[SEP]);
        n++;
    }
    return n;
}

static void explain_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc explain [--text \"[CLS] I love NLP [SEP]\"] [--d-model 512] [--heads 8]\n"
            "                     [--d-ff 2048] [--layers 1] [--layer 0] [--head 0] [--seed 0]\n"
            "Runs the tutorial's encoder (GELU, post-norm, sinusoidal positions, weights drawn\n"
            "from --seed) on the text and prints every step with its shape and values.\n"
            "Known words: ");
    for (int i = 4; i < VOCAB; i++)
        fprintf(out, "%s%s", vocabulary[i], i + 1 < VOCAB ? " " : "\n");
}

static int parse_int(const char *flag, const char *value, int lo, int hi, int *out)
{
    char *end;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end || v < lo || v > hi) {
        fprintf(stderr, "tfenc explain: %s needs an integer in %d..%d, got '%s'\n", flag, lo, hi,
                value ? value : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, explain_options *o)
{
    *o = (explain_options){.d_model = 512, .heads = 8, .d_ff = 2048, .layers = 1,
                           .text = "[CLS] I love NLP [SEP]"};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int seed = 0, rc = 0;
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            explain_usage(stdout);
            exit(0);
        } else if (strcmp(flag, "--text") == 0 && value) {
            o->text = value;
        } else if (strcmp(flag, "--d-model") == 0) {
            rc = parse_int(flag, value, 1, 4096, &o->d_model);
        } else if (strcmp(flag, "--heads") == 0) {
            rc = parse_int(flag, value, 1, 4096, &o->heads);
        } else if (strcmp(flag, "--d-ff") == 0) {
            rc = parse_int(flag, value, 1, 16384, &o->d_ff);
        } else if (strcmp(flag, "--layers") == 0) {
            rc = parse_int(flag, value, 1, 64, &o->layers);
        } else if (strcmp(flag, "--layer") == 0) {
            rc = parse_int(flag, value, 0, 63, &o->layer);
        } else if (strcmp(flag, "--head") == 0) {
            rc = parse_int(flag, value, 0, 4095, &o->head);
        } else if (strcmp(flag, "--seed") == 0) {
            rc = parse_int(flag, value, 0, 1 << 30, &seed);
            o->seed = (unsigned long long)seed;
        } else {
            fprintf(stderr, "tfenc explain: unknown option '%s'\n", flag);
            explain_usage(stderr);
            return -1;
        }
        if (rc)
            return -1;
        i += strcmp(flag, "--help") != 0; /* every option takes a value */
    }
    if (o->layer >= o->layers || o->head >= o->heads) {
        fprintf(stderr, "tfenc explain: --layer %d / --head %d must be below --layers %d / --heads "
                        "%d\n", o->layer, o->head, o->layers, o->heads);
        return -1;
    }
    return 0;
}

int tfenc_explain(int argc, char **argv)
{
    explain_options opt;
    if (parse_options(argc, argv, &opt))
        return 2;
    walkthrough w = {.opt = &opt, .color = isatty(STDOUT_FILENO)};
    int32_t ids[MAX_TOKENS];
    w.T = tokenize(&w, ids, opt.text);

    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = opt.d_model, cfg.n_heads = opt.heads, cfg.d_ff = opt.d_ff;
    cfg.n_layers = opt.layers, cfg.vocab_size = VOCAB, cfg.seed = opt.seed;
    tf_encoder *enc;
    tf_status s = tf_encoder_create(&cfg, &enc);
    if (s) {
        fprintf(stderr, "tfenc explain: %s: %s\n", tf_status_name(s), tf_last_error());
        return 1;
    }
    printf("libtfenc %s: a Transformer encoder, step by step\n", tf_version_string());
    printf("model: d_model %d, %d heads (d_k %d), d_ff %d, %d layer%s, GELU, post-norm,\n"
           "       sinusoidal positions, weights drawn from seed %llu\n",
           opt.d_model, opt.heads, opt.d_model / opt.heads, opt.d_ff, opt.layers,
           opt.layers > 1 ? "s" : "", opt.seed);
    printf("input: \"%s\" -> %d tokens:", opt.text, w.T);
    for (int t = 0; t < w.T; t++)
        printf(" %s=%d", w.labels[t], (int)ids[t]);
    printf("\n");

    float *out = malloc(sizeof(float) * (size_t)w.T * (size_t)opt.d_model);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = w.T, a.input_ids = ids, a.output = out;
    a.trace = on_event, a.trace_user_data = &w;
    s = out ? tf_encoder_forward(enc, &a) : TF_ERR_OUT_OF_MEMORY;
    if (s == TF_OK) {
        heading(&w, "Output of the encoder");
        printf("  (%d, %d): one %d-dimensional vector per token, each now mixing in the whole "
               "sentence\n",
               w.T, opt.d_model, opt.d_model);
        token_rows(&w, out, opt.d_model);
    } else {
        fprintf(stderr, "tfenc explain: %s: %s\n", tf_status_name(s), tf_last_error());
    }
    free(out);
    tf_encoder_destroy(enc);
    return s == TF_OK ? 0 : 1;
}
