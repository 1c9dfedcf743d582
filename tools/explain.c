/* explain.c — `tfenc explain`: an encoder run on a sentence, printed step by
 * step from the library's trace events (each tensor's name, exact shape,
 * the shape algebra of each product, real values); or, with --heatmap,
 * --dump and --compare, the same events drawn, saved or checked against
 * another implementation; or the tutorial's worked example. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"
#include "heatmap.h"
#include "recording.h"
#include "tfenc.h"

/* A small built-in vocabulary for when no vocab.txt is given: words are
 * looked up whole, case-insensitively; others become [UNK]. */
static const char *const vocabulary[] = {
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "i",      "love",      "nlp",    "the",
    "a",     "an",    "model", "is",    "all",    "you",       "need",   "attention",
    "transformer",    "encoder",        "reads",  "every",     "word",   "at",
    "once",  "we",    "learn", "by",    "seeing", "numbers",   "hello",  "world",
    "sentence",       "."};
enum { VOCAB = sizeof vocabulary / sizeof vocabulary[0], UNK = 1, CLS = 2, SEP = 3 };
enum { MAX_TOKENS = 64, SHOWN_VALUES = 6, SHOWN_COLUMNS = 10 };

typedef struct explain_options {
    int d_model, heads, d_ff, layers, layer, head, sized;
    unsigned long long seed;
    const char *text, *model, *vocab, *heatmap, *dump, *compare;
    int cased, worked_example;
    double tol;
    tf_load_options load;
} explain_options;

typedef struct walkthrough {
    const explain_options *opt;
    tf_config cfg;
    char labels[MAX_TOKENS][16];
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
    const int D = w->cfg.d_model, T = w->T;
    if (!strcmp(name, "embed.token")) {
        heading(w, w->cfg.vocab_size ? "Token embedding: each token id picks one row of the table"
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
            printf("  learned: rows 0..%d of a (%d, %d) table\n", T - 1, (int)w->cfg.max_positions,
                   D);
        tensor_line(ev, w->cfg.position == TF_POSITION_SINUSOIDAL
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
               "  so all must have the same shape\n", T, D, T, D, T, D);
        tensor_line(ev, "");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "embed.norm")) {
        heading(w, "Embedding LayerNorm");
        tensor_line(ev, "each row now has mean 0 and standard deviation 1 (then scaled):");
        row_stats(w, ev->data, D);
    }
}

/* Rows of the chosen head from a [1, H, T, d_k] event. */
static const float *head_rows(const walkthrough *w, const tf_trace_event *ev)
{
    return ev->data + (size_t)w->opt->head * w->T * ev->dims[3];
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
    } else if (!strcmp(name, "attn.scores")) {
        heading(w, "Scaled dot-product scores");
        printf("  S = Q K^T / sqrt(d_k): (%d, %d) . (%d, %d) -> (%d, %d) per head; scale 1/sqrt(%d) "
               "= %.4f\n  (without it the dot products grow with d_k and softmax saturates)\n",
               T, dk, dk, T, T, T, dk, 1.0 / sqrt((double)dk));
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
               "= (%d, %d)\n", T, T, T, dk, T, dk, H, T, H, dk, T, D);
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
    const char *act = tfenc_activation_names[w->cfg.activation];
    if (!strcmp(name, "norm1") || !strcmp(name, "norm2")) {
        heading(w, name[4] == '1' ? "Pre-norm: LayerNorm(x) goes into the attention"
                                  : "Pre-norm: LayerNorm(x) goes into the feed-forward network");
        tensor_line(ev, "each row: mean 0, standard deviation 1 (then scaled):");
        row_stats(w, ev->data, D);
    } else if (!strcmp(name, "add_norm1")) {
        heading(w, pre ? "Residual: x + attention output" : "Add & Norm: LayerNorm(x + attention output)");
        if (pre) {
            tensor_line(ev, "(pre-norm adds without normalising)");
            token_rows(w, ev->data, D);
        } else {
            printf("  (%d, %d) + (%d, %d) -> LayerNorm over the last dimension (%d values per "
                   "token)\n", T, D, T, D, D);
            tensor_line(ev, "each row now has mean 0 and standard deviation 1:");
            row_stats(w, ev->data, D);
        }
    } else if (!strcmp(name, "ffn.hidden")) {
        heading(w, "Feed-forward network, per token: up, activation, down");
        printf("  (%d, %d) . (%d, %d) -> (%d, %d), then %s element-wise\n", T, D, D, F, T, F, act);
        tensor_line(ev, "after the activation");
        token_rows(w, ev->data, F);
    } else if (!strcmp(name, "ffn.out")) {
        printf("  (%d, %d) . (%d, %d) -> (%d, %d)\n", T, F, F, D, T, D);
        tensor_line(ev, "back to d_model");
        token_rows(w, ev->data, D);
    } else if (!strcmp(name, "add_norm2")) {
        heading(w, pre ? "Residual again: the layer's output"
                       : "Add & Norm again: the layer's output");
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

static int builtin_id(const char *word)
{
    for (int i = 0; i < VOCAB; i++)
        if (strcasecmp(word, vocabulary[i]) == 0)
            return i;
    return UNK;
}

/* Whitespace-separated words of the built-in vocabulary, with [CLS] and
 * [SEP] added if the text lacks them; labels are the words as written. */
static int builtin_tokens(walkthrough *w, int32_t *ids, const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *tok = strtok(buf, " \t\n"); tok && n < MAX_TOKENS - 2; tok = strtok(NULL, " \t\n")) {
        ids[n] = builtin_id(tok);
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

/* WordPiece tokens of text; -1 after a message. */
static int wordpiece_tokens(walkthrough *w, int32_t *ids, const tf_tokenizer *tok,
                            const char *text)
{
    tf_encoding *e;
    const tf_status s = tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &e);
    if (s) {
        fprintf(stderr, "tfenc explain: %s: %s\n", tf_status_name(s), tf_last_error());
        return -1;
    }
    const int n = tf_encoding_lengths(e)[0];
    if (n > MAX_TOKENS) {
        fprintf(stderr, "tfenc explain: the text has %d tokens; explain shows at most %d\n", n,
                MAX_TOKENS);
        tf_encoding_destroy(e);
        return -1;
    }
    for (int t = 0; t < n; t++) {
        ids[t] = tf_encoding_ids(e)[t];
        snprintf(w->labels[t], sizeof w->labels[t], "%s",
                 tf_tokenizer_id_to_token(tok, ids[t]));
    }
    tf_encoding_destroy(e);
    return n;
}

/* ---- Options ----------------------------------------------------------------- */

static void explain_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc explain [--text TEXT] [--layer L] [--head H]\n"
            "                     [--d-model 512 --heads 8 --d-ff 2048 --layers 1 --seed 0]\n"
            "                     [--model FILE_OR_DIR [--n-heads N --activation A --norm-first B]]\n"
            "                     [--vocab vocab.txt [--cased]]\n"
            "                     [--heatmap FILE.png | --dump DIR | --compare DIR [--tol 1e-4]]\n"
            "       tfenc explain --worked-example\n"
            "Runs an encoder (the tutorial's model, or --model) on the text and prints every\n"
            "step with its shape and values. --heatmap draws layer L's attention weights,\n"
            "--dump writes every intermediate as .npy, --compare checks another\n"
            "implementation's .npy files against them. Without --vocab, a small built-in\n"
            "vocabulary is used; its words: ");
    for (int i = 4; i < VOCAB; i++)
        fprintf(out, "%s%s", vocabulary[i], i + 1 < VOCAB ? " " : "\n");
}

static int parse_int(const char *flag, const char *value, int lo, int hi, int *out)
{
    char *end;
    const long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end || v < lo || v > hi) {
        fprintf(stderr, "tfenc explain: %s needs an integer in %d..%d, got '%s'\n", flag, lo, hi,
                value ? value : "");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Options that take a value; 1 if flag was one, -1 on a bad value. */
static int parse_valued(explain_options *o, const char *flag, const char *value)
{
    int seed = 0;
    const char **text = !strcmp(flag, "--text")      ? &o->text
                        : !strcmp(flag, "--model")   ? &o->model
                        : !strcmp(flag, "--vocab")   ? &o->vocab
                        : !strcmp(flag, "--heatmap") ? &o->heatmap
                        : !strcmp(flag, "--dump")    ? &o->dump
                        : !strcmp(flag, "--compare") ? &o->compare
                                                     : NULL;
    if (text) {
        *text = value;
        return value ? 1 : -1;
    }
    struct { const char *flag; int lo, hi, *out, sizes; } ints[] = {
        {"--d-model", 1, 4096, &o->d_model, 1}, {"--heads", 1, 4096, &o->heads, 1},
        {"--d-ff", 1, 16384, &o->d_ff, 1},      {"--layers", 1, 64, &o->layers, 1},
        {"--layer", 0, 1023, &o->layer, 0},     {"--head", 0, 4095, &o->head, 0},
        {"--seed", 0, 1 << 30, &seed, 1}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (strcmp(flag, ints[i].flag) != 0)
            continue;
        if (parse_int(flag, value, ints[i].lo, ints[i].hi, ints[i].out))
            return -1;
        o->sized |= ints[i].sizes;
        if (ints[i].out == &seed)
            o->seed = (unsigned long long)seed;
        return 1;
    }
    if (!strcmp(flag, "--tol")) {
        o->tol = value ? atof(value) : 0;
        return o->tol > 0 ? 1 : -1;
    }
    return parse_load_option("explain", flag, value, &o->load);
}

static int parse_options(int argc, char **argv, explain_options *o)
{
    *o = (explain_options){.d_model = 512, .heads = 8, .d_ff = 2048, .layers = 1, .tol = 1e-4};
    tf_load_options_init(&o->load);
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            explain_usage(stdout);
            exit(0);
        }
        if (!strcmp(flag, "--worked-example") || !strcmp(flag, "--cased")) {
            *(flag[2] == 'w' ? &o->worked_example : &o->cased) = 1;
            continue;
        }
        const int known = parse_valued(o, flag, value);
        if (known == 0) {
            fprintf(stderr, "tfenc explain: unknown option '%s'\n", flag);
            explain_usage(stderr);
        }
        if (known <= 0) {
            if (known < 0 && value)
                fprintf(stderr, "tfenc explain: bad value for %s: '%s'\n", flag, value);
            return -1;
        }
        i++;
    }
    if (o->model && o->sized) {
        fprintf(stderr, "tfenc explain: --d-model, --heads, --d-ff, --layers and --seed describe "
                        "the tutorial's model; --model brings its own\n");
        return -1;
    }
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
static float *draw_vectors(int T, int D, unsigned long long seed)
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
    printf("       %s, %s-norm, %s%s", tfenc_activation_names[c->activation],
           c->norm_placement == TF_NORM_PRE ? "pre" : "post",
           c->position == TF_POSITION_NONE ? "no positional encoding"
                                           : tfenc_position_names[c->position],
           c->position == TF_POSITION_NONE ? "" : " positions");
    if (!w->opt->model)
        printf(", weights drawn from seed %llu", w->opt->seed);
    printf("\ninput: \"%s\" -> %d tokens:", w->opt->text, w->T);
    for (int t = 0; t < w->T; t++)
        printf(" %s=%d", w->labels[t], (int)ids[t]);
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

/* --heatmap, --dump, --compare on the recorded events. */
static int actions(const walkthrough *w)
{
    const explain_options *o = w->opt;
    int rc = 0;
    if (o->heatmap) {
        char name[64], err[512];
        snprintf(name, sizeof name, "layers.%d.attn.weights", o->layer);
        const recorded *weights = recording_find(&w->rec, name);
        if (heatmap_write(o->heatmap, weights, (const char (*)[16])w->labels, o->layer, err,
                          sizeof err) != 0) {
            fprintf(stderr, "tfenc explain: %s\n", err);
            return 1;
        }
        int width, height;
        heatmap_size(w->T, w->cfg.n_heads, &width, &height);
        printf("wrote %s: %d heads of layer %d, %d x %d pixels\n", o->heatmap,
               (int)w->cfg.n_heads, o->layer, width, height);
    }
    if (o->dump) {
        char description[1200];
        snprintf(description, sizeof description, "model: %s; text: %s",
                 o->model ? o->model : "the tutorial's", o->text);
        if (dump_write(o->dump, &w->rec, (const char (*)[16])w->labels, w->T, description))
            return 1;
    }
    if (o->compare)
        rc = dump_compare(o->compare, &w->rec, o->tol) ? 1 : 0;
    return rc;
}

int tfenc_explain(int argc, char **argv)
{
    explain_options opt;
    if (parse_options(argc, argv, &opt))
        return 2;
    if (opt.worked_example)
        return tfenc_worked_example();
    walkthrough w = {.opt = &opt, .color = isatty(STDOUT_FILENO)};
    w.print = !opt.heatmap && !opt.dump && !opt.compare;
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
    if (s) {
        fprintf(stderr, "tfenc explain: %s: %s\n", tf_status_name(s), tf_last_error());
        tf_tokenizer_destroy(tok);
        tf_encoder_destroy(enc);
        return 1;
    }
    w.T = tok ? wordpiece_tokens(&w, ids, tok, opt.text) : builtin_tokens(&w, ids, opt.text);
    int rc = w.T < 0 || opt.layer >= w.cfg.n_layers || opt.head >= w.cfg.n_heads ? 2 : 0;
    if (rc == 2 && w.T >= 0)
        fprintf(stderr, "tfenc explain: --layer %d / --head %d: the model has %d layers and %d "
                        "heads\n", opt.layer, opt.head, (int)w.cfg.n_layers, (int)w.cfg.n_heads);
    float *out = rc ? NULL : malloc(sizeof(float) * (size_t)w.T * (size_t)w.cfg.d_model);
    if (out && w.print)
        print_header(&w, ids);
    if (out && (s = run(&w, enc, ids, out)) != TF_OK) {
        fprintf(stderr, "tfenc explain: %s: %s\n", tf_status_name(s), tf_last_error());
        rc = 1;
    } else if (out && w.print) {
        heading(&w, "Output of the encoder");
        printf("  (%d, %d): one %d-dimensional vector per token, each now mixing in the whole "
               "sentence\n", w.T, (int)w.cfg.d_model, (int)w.cfg.d_model);
        token_rows(&w, out, w.cfg.d_model);
    } else if (out) {
        rc = actions(&w);
    }
    free(out);
    recording_free(&w.rec);
    tf_tokenizer_destroy(tok);
    tf_encoder_destroy(enc);
    return rc;
}
