/* tfenc_bench.c — forward-pass time across sequence lengths, as a fraction
 * of the sgemm peak measured in the same run.
 *
 *   tfenc-bench [--arch bert] [--d-model 768] [--heads 12] [--d-ff 3072] [--layers 1]
 *               [--batch 1] [--threads N] [--lengths 16,64,...] [--min-time 1]
 *               [--csv FILE] [--json FILE] [--no-peak] [--varlen] [--gemm-floor]
 *               [--concurrent K]
 *   tfenc-bench --tokenize all|TOKENIZER [--text-file FILE] [--min-time 1]
 *
 * Per length: median and min ms over at least 3 timed runs (after a warm-up)
 * and at least --min-time seconds; GFLOP/s from the formula printed in the
 * header; the fraction of the peak of cblas_sgemm(2048^3) on the same
 * threads, measured just before that length (the speed of a shared machine
 * drifts over minutes); the peak resident memory of the forward call
 * beyond the weights and the caller's buffers (the kernel's high-water
 * mark, reset before each length).
 *
 * With --varlen: 32 sequences of lengths uniform in [8, 128] padded to 128,
 * against full 128-token sequences of about as many tokens: real tokens per
 * second of each, and their ratio.
 *
 * With --concurrent K: per length, K threads each making forward calls on
 * the one handle at once (each its own input, output and workspace),
 * against the same calls made one after the other: calls per second of
 * each.
 *
 * With --gemm-floor: per length, the forward call against its own
 * cblas_sgemm calls alone (gemm_floor.h), issued as the library's schedule
 * issues them, timed one after the other: how far the layer is from what
 * its BLAS allows.
 *
 * --arch picks the kind of encoder, base-sized unless --d-model, --heads or
 * --d-ff say otherwise (vectors in, random weights): bert (post-norm, GELU,
 * biases), modernbert (ModernBERT-base: pre-norm, GeGLU, no biases, rotary
 * theta 160000 / 10000, a 128-token window with layers l % 3 == 0 global;
 * F 1152), modernbert-local and modernbert-global (the same with every
 * layer local, or global), nomic (NomicBERT: post-norm, SwiGLU, rotary theta
 * 1000, LayerNorm biases only), jina (JinaBERT v2: ALiBi, GeGLU), jina-code
 * (its code variant: LayerNorms on Q and K and a second norm after attention), gte
 * (GTE v1.5: rotary theta 160000 with NTK factor 2, GeGLU) and mpnet (MPNet-base:
 * BERT's post-norm layers with its relative position bias, 32 buckets up to
 * distance 128 shared by the layers). BERT's other shapes (RoBERTa,
 * DistilBERT, ELECTRA, XLM-R) are bert with other sizes.
 *
 * --threads N is the forward calls' tf_forward_args.n_threads (0, the
 * default: one per online core). The header says which BLAS ran, its
 * build, its own thread setting and, for OpenBLAS, the kernels it chose
 * (OPENBLAS_CORETYPE, when set, picks them instead of the CPU).
 *
 * With --tokenize: MB/s of text through a tokenizer on one thread
 * (tokenize_bench.h): "all", each algorithm's committed fixture on the seed
 * article and a mixed-script text (or the text of --text-file); else the
 * given tokenizer.json, vocab.txt or folder on the text of --text-file, or
 * on English-like text made from the vocabulary's whole words. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>

#include "blas_threads.h"
#include "gemm_floor.h"
#include "tfenc.h"
#include "timing.h"
#include "tokenize_bench.h"

enum { MAX_LENGTHS = 32 };

typedef struct bench_options {
    const char *arch;
    int d_model, heads, d_ff, layers, batch, threads; /* sizes: 0 = the arch's */
    int lengths[MAX_LENGTHS], n_lengths;
    double min_time;
    int no_peak, varlen, gemm_floor, concurrent;
    const char *csv, *json;
    const char *tokenize, *text_file; /* --tokenize */
} bench_options;

/* --arch: a kind of encoder, base-sized. */
typedef struct arch_preset {
    const char *name;
    int d_model, heads, d_ff;
    void (*set)(tf_config *c); /* everything but the sizes */
} arch_preset;

static void set_bert(tf_config *c)
{
    c->position = TF_POSITION_NONE;
}

static void set_modernbert(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base = 160000.0f, c->rotary_base_local = 1e4f;
    c->norm_placement = TF_NORM_PRE, c->skip_first_norm1 = 1, c->final_norm = 1;
    c->embedding_norm = 1, c->bias = 0, c->ffn_gated = 1, c->activation = TF_ACTIVATION_GELU;
    c->attn_window = 128, c->global_every = 3;
}

static void set_modernbert_local(tf_config *c)
{
    set_modernbert(c);
    c->global_every = 0;
}

static void set_modernbert_global(tf_config *c)
{
    set_modernbert(c);
    c->attn_window = 0, c->global_every = 0;
}

static void set_nomic(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base = 1000.0f, c->embedding_norm = 1;
    c->bias = 0, c->norm_bias = 1, c->ffn_gated = 1, c->activation = TF_ACTIVATION_SILU;
}

static void set_jina(tf_config *c)
{
    c->position = TF_POSITION_ALIBI, c->embedding_norm = 1, c->ffn_gated = 1;
}

static void set_jina_code(tf_config *c)
{
    set_jina(c);
    c->qk_norm = 1, c->add_norm1b = 1;
}

static void set_gte(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base = 160000.0f, c->rotary_ntk_factor = 2.0f;
    c->embedding_norm = 1, c->ffn_gated = 1;
}

static void set_mpnet(tf_config *c)
{
    c->position = TF_POSITION_NONE, c->embedding_norm = 1, c->layer_norm_eps = 1e-12f;
    c->relative_buckets = 32; /* relative_max_distance 0: MPNet's 128 */
}

static const arch_preset archs[] = {
    {"bert", 768, 12, 3072, set_bert},
    {"modernbert", 768, 12, 1152, set_modernbert},
    {"modernbert-local", 768, 12, 1152, set_modernbert_local},
    {"modernbert-global", 768, 12, 1152, set_modernbert_global},
    {"nomic", 768, 12, 3072, set_nomic},
    {"jina", 768, 12, 3072, set_jina},
    {"jina-code", 768, 12, 3072, set_jina_code},
    {"gte", 768, 12, 3072, set_gte},
    {"mpnet", 768, 12, 3072, set_mpnet},
};
enum { N_ARCHS = sizeof archs / sizeof archs[0] };

/* The config of o's arch and sizes (filling o's unset sizes from the
 * preset); -1 for an arch that is not in the table. */
static int arch_config(bench_options *o, tf_config *cfg)
{
    for (int i = 0; i < N_ARCHS; i++) {
        if (strcmp(archs[i].name, o->arch) != 0)
            continue;
        o->d_model = o->d_model ? o->d_model : archs[i].d_model;
        o->heads = o->heads ? o->heads : archs[i].heads;
        o->d_ff = o->d_ff ? o->d_ff : archs[i].d_ff;
        tf_config_init(cfg);
        cfg->d_model = o->d_model, cfg->n_heads = o->heads, cfg->d_ff = o->d_ff;
        cfg->n_layers = o->layers;
        archs[i].set(cfg);
        return 0;
    }
    fprintf(stderr, "tfenc-bench: --arch '%s': expected one of", o->arch);
    for (int i = 0; i < N_ARCHS; i++)
        fprintf(stderr, " %s", archs[i].name);
    fprintf(stderr, "\n");
    return -1;
}

static double status_mb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field)))
            kb = atof(line + strlen(field) + 1);
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb / 1024.0;
}

/* Resets the peak-RSS mark (Linux: "5" to clear_refs); 0 on success. */
static int reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    const int ok = f && fputs("5", f) >= 0;
    return f && fclose(f) == 0 && ok ? 0 : -1;
}

/* Best GFLOP/s of C (2048,2048) = A B over a few runs. The matrices are
 * mapped and unmapped here, not malloc'd, so that their 48 MB leave the
 * process when it returns and never count in its memory figures. (Not in a
 * forked child: an OpenMP BLAS such as BLIS hangs in a child forked after
 * its threads started.) */
static double sgemm_peak(void)
{
    const int n = 2048;
    const size_t bytes = 3 * sizeof(float) * n * n;
    float *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return 0.0;
    float *b = a + (size_t)n * n, *c = b + (size_t)n * n;
    for (int i = 0; i < n * n; i++)
        a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        const double t0 = bench_now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                    n);
        const double dt = bench_now() - t0;
        best = dt < best ? dt : best;
    }
    munmap(a, bytes);
    return 2.0 * n * n * (double)n / best / 1e9;
}

/* Which BLAS runs the products, and how it is set up; which build of the
 * library's own loops runs (tf_runtime_info_get). */
static void print_runtime(void)
{
    tf_runtime_info r;
    if (tf_runtime_info_get(&r) != TF_OK)
        return;
    const char *coretype = getenv("OPENBLAS_CORETYPE");
    printf("BLAS: %s (%s), its own threads %d (the library holds them at 1 during forward "
           "calls), kernels %s (OPENBLAS_CORETYPE %s); libtfenc's vector loops: %s\n",
           r.blas, r.blas_build, (int)r.blas_threads, r.blas_kernels,
           coretype ? coretype : "unset: chosen for this CPU", r.vector_loops);
}

static int parse_lengths(const char *s, bench_options *o)
{
    o->n_lengths = 0;
    for (const char *p = s; *p && o->n_lengths < MAX_LENGTHS;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > (1 << 20))
            return -1;
        o->lengths[o->n_lengths++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return o->n_lengths > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){.arch = "bert", .layers = 1, .batch = 1, .threads = 0, .min_time = 1.0};
    parse_lengths("16,64,128,256,512,1024,2048,4096,8192", o);
    for (int i = 1; i < argc; i += 2) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int *flag = !strcmp(f, "--no-peak") ? &o->no_peak /* e.g. under valgrind */
            : !strcmp(f, "--varlen")        ? &o->varlen
            : !strcmp(f, "--gemm-floor")    ? &o->gemm_floor
                                            : NULL;
        if (flag) {
            *flag = 1;
            i--;
            continue;
        }
        if (!v) {
            fprintf(stderr, "tfenc-bench: %s needs a value\n", f);
            return -1;
        }
        int *target = !strcmp(f, "--d-model") ? &o->d_model
            : !strcmp(f, "--heads")           ? &o->heads
            : !strcmp(f, "--d-ff")            ? &o->d_ff
            : !strcmp(f, "--layers")          ? &o->layers
            : !strcmp(f, "--batch")           ? &o->batch
            : !strcmp(f, "--threads")         ? &o->threads
            : !strcmp(f, "--concurrent")      ? &o->concurrent
                                              : NULL;
        if (target) {
            *target = atoi(v);
        } else if (!strcmp(f, "--lengths")) {
            if (parse_lengths(v, o)) {
                fprintf(stderr, "tfenc-bench: bad --lengths '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(f, "--arch")) {
            o->arch = v;
        } else if (!strcmp(f, "--min-time")) {
            o->min_time = atof(v);
        } else if (!strcmp(f, "--csv")) {
            o->csv = v;
        } else if (!strcmp(f, "--json")) {
            o->json = v;
        } else if (!strcmp(f, "--tokenize")) {
            o->tokenize = v;
        } else if (!strcmp(f, "--text-file")) {
            o->text_file = v;
        } else {
            fprintf(stderr, "tfenc-bench: unknown option '%s'\n", f);
            return -1;
        }
    }
    return 0;
}

typedef struct forward_call {
    const tf_encoder *enc;
    const tf_forward_args *args;
} forward_call;

static int forward_once(void *ctx)
{
    const forward_call *c = ctx;
    return (int)tf_encoder_forward(c->enc, c->args);
}

/* Times forward calls at one length; fills median and min seconds and the
 * peak memory (MB) the calls took beyond what was resident before them. */
static tf_status time_batch(const tf_encoder *enc, const bench_options *o, int B, int T,
                            const int32_t *lengths, double *median, double *best, double *extra_mb)
{
    const size_t n = (size_t)B * (size_t)T * (size_t)o->d_model;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    /* Both touched, so that the caller's buffers are resident before the
     * call (y not with zeros: GCC turns malloc + zero fill into calloc, whose
     * pages stay untouched until the call writes them). */
    for (size_t i = 0; x && y && i < n; i++) {
        x[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        y[i] = 1.0f;
    }
    /* empty: the warm-up call grows it, so its scratch counts as the call's memory */
    tf_workspace *ws = NULL;
    tf_status s = x && y ? tf_workspace_create(&ws) : TF_ERR_OUT_OF_MEMORY;
    const double resident = status_mb("VmRSS:");
    reset_peak_rss();
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.output = y, a.lengths = lengths;
    a.workspace = ws, a.n_threads = o->threads;
    if (s == TF_OK)
        s = tf_encoder_forward(enc, &a); /* warm-up: the workspace grows to fit */
    *extra_mb = status_mb("VmHWM:") - resident;
    forward_call call = {enc, &a};
    if (s == TF_OK)
        s = (tf_status)bench_time_runs(forward_once, &call, o->min_time, median, best);
    tf_workspace_destroy(ws);
    free(x), free(y);
    return s;
}

/* Floating-point operations of one forward call at length T (the formula
 * the header prints): per layer 8 T D^2 (Q, K, V, out), 4 T D F (6 when
 * gated) and 4 T K D, K the keys a query sees: T, or min(T, W + 1) in a
 * local layer. */
static double layer_flops(const bench_options *o, const tf_config *cfg, int T)
{
    const double Td = T, D = o->d_model, F = o->d_ff;
    double total = 0;
    for (int l = 0; l < cfg->n_layers; l++) {
        const int local = cfg->attn_window > 0 &&
            (cfg->global_every == 0 || l % cfg->global_every != 0);
        const double keys = local && cfg->attn_window + 1 < T ? cfg->attn_window + 1 : Td;
        total += 8 * Td * D * D + (cfg->ffn_gated ? 6 : 4) * Td * D * F + 4 * Td * keys * D;
    }
    return o->batch * total;
}

static tf_status time_length(const tf_encoder *enc, const bench_options *o, int T, double *median,
                             double *best, double *extra_mb)
{
    return time_batch(enc, o, o->batch, T, NULL, median, best, extra_mb);
}

/* 32 sequences of lengths uniform in [8, 128], padded to 128, against full
 * 128-token sequences of about as many real tokens. */
static tf_status bench_varlen(const tf_encoder *enc, const bench_options *o)
{
    enum { B = 32, T = 128 };
    int32_t lengths[B];
    int tokens = 0;
    uint32_t r = 2024;
    for (int b = 0; b < B; b++) {
        r = r * 1103515245u + 12345u;
        lengths[b] = 8 + (int32_t)((r >> 8) % (T - 8 + 1));
        tokens += lengths[b];
    }
    const int full = (tokens + T / 2) / T;
    double padded_s, full_s, best, mb;
    tf_status s = time_batch(enc, o, B, T, lengths, &padded_s, &best, &mb);
    if (s == TF_OK)
        s = time_batch(enc, o, full, T, NULL, &full_s, &best, &mb);
    if (s)
        return s;
    const double padded_tps = tokens / padded_s, full_tps = full * T / full_s;
    printf("\nvariable lengths: %d sequences of 8..128 tokens padded to %d (%d real tokens): "
           "%.2f ms, %.0f tokens/s\n",
           B, T, tokens, padded_s * 1e3, padded_tps);
    printf("full sequences:   %d sequences of %d tokens (%d tokens): %.2f ms, %.0f tokens/s\n",
           full, T, full * T, full_s * 1e3, full_tps);
    printf("padded batch / full batch, real tokens per second: %.1f%%\n",
           100 * padded_tps / full_tps);
    return TF_OK;
}

enum { MAX_CONCURRENT = 64, CONCURRENT_CALLS = 8 };

/* When the threads of --concurrent may start calling: once all exist. */
typedef struct start_signal {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int go; /* 1: call; -1: a thread did not start, call nothing */
} start_signal;

/* One thread of --concurrent: CONCURRENT_CALLS forward calls, once the
 * start signal (if any) says go. */
typedef struct caller {
    const tf_encoder *enc;
    tf_forward_args args;
    pthread_t thread;
    start_signal *start;
    tf_status status;
} caller;

static void *caller_main(void *arg)
{
    caller *c = arg;
    int go = 1;
    if (c->start) {
        pthread_mutex_lock(&c->start->lock);
        while (c->start->go == 0)
            pthread_cond_wait(&c->start->changed, &c->start->lock);
        go = c->start->go;
        pthread_mutex_unlock(&c->start->lock);
    }
    for (int i = 0; go == 1 && i < CONCURRENT_CALLS && c->status == TF_OK; i++)
        c->status = tf_encoder_forward(c->enc, &c->args);
    return NULL;
}

/* Seconds for k callers' calls, one caller after the other, or all at
 * once (timed from when every thread exists); -1 if a thread would not
 * start. */
static double run_callers(caller *callers, int k, int at_once)
{
    start_signal start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int started = 0;
    for (; at_once && started < k; started++) {
        callers[started].start = &start;
        if (pthread_create(&callers[started].thread, NULL, caller_main, &callers[started]))
            break;
    }
    pthread_mutex_lock(&start.lock);
    start.go = started == k || !at_once ? 1 : -1;
    pthread_cond_broadcast(&start.changed);
    pthread_mutex_unlock(&start.lock);
    const double t0 = bench_now();
    for (int i = 0; !at_once && i < k; i++) {
        callers[i].start = NULL;
        caller_main(&callers[i]);
    }
    for (int i = 0; i < started; i++)
        pthread_join(callers[i].thread, NULL);
    return start.go == 1 ? bench_now() - t0 : -1.0;
}

/* --concurrent K: K threads on one handle at once against the same calls
 * one after the other, per length. */
static tf_status bench_concurrent(const tf_encoder *enc, const bench_options *o)
{
    const int k = o->concurrent < MAX_CONCURRENT ? o->concurrent : MAX_CONCURRENT;
    printf("\n%d threads calling forward on one handle at once (%d calls each, n_threads %d) "
           "against the same calls one after the other\n",
           k, CONCURRENT_CALLS, o->threads);
    printf("%7s %16s %16s %8s\n", "T", "serial calls/s", "at once calls/s", "ratio");
    tf_status s = TF_OK;
    for (int l = 0; l < o->n_lengths && s == TF_OK; l++) {
        const int T = o->lengths[l];
        const size_t n = (size_t)o->batch * (size_t)T * (size_t)o->d_model;
        static caller callers[MAX_CONCURRENT];
        float *buf = malloc(2 * n * (size_t)k * sizeof *buf); /* input, output per caller */
        for (size_t i = 0; buf && i < 2 * n * (size_t)k; i++)
            buf[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        for (int i = 0; i < k; i++) {
            callers[i] = (caller){.enc = enc, .status = buf ? TF_OK : TF_ERR_OUT_OF_MEMORY};
            tf_forward_args_init(&callers[i].args);
            tf_forward_args *a = &callers[i].args;
            a->batch = o->batch, a->seq_len = T, a->n_threads = o->threads;
            a->input_embeds = buf ? buf + 2 * n * (size_t)i : NULL;
            a->output = buf ? buf + 2 * n * (size_t)i + n : NULL;
            if (callers[i].status == TF_OK)
                callers[i].status = tf_workspace_create(&a->workspace);
            if (callers[i].status == TF_OK) /* warm-up: the workspace grows */
                callers[i].status = tf_encoder_forward(enc, a);
        }
        const double serial = run_callers(callers, k, 0), together = run_callers(callers, k, 1);
        for (int i = 0; i < k; i++) {
            s = s ? s : together < 0 ? TF_ERR_OUT_OF_MEMORY : callers[i].status;
            tf_workspace_destroy(callers[i].args.workspace);
        }
        free(buf);
        const double calls = (double)k * CONCURRENT_CALLS;
        if (s == TF_OK)
            printf("%7d %16.1f %16.1f %8.2f\n", T, calls / serial, calls / together,
                   serial / together);
        fflush(stdout);
    }
    return s;
}

/* Per length: the forward call, then its matrix products alone, and both
 * as fractions of the sgemm peak measured just before them. Returns 0, or 1
 * after saying what failed. */
static int bench_gemm_floor(const tf_encoder *enc, const tf_config *cfg, const bench_options *o)
{
    printf("\nmatrix products alone: the same cblas_sgemm calls as the forward pass (shapes, "
           "strides, beta, order), nothing between them\n");
    printf("%7s %11s %11s %13s %11s %15s %15s\n", "T", "layer ms", "GEMMs ms", "GEMMs/layer",
           "peak GF/s", "layer of peak", "GEMMs of peak");
    for (int i = 0; i < o->n_lengths; i++) {
        const int T = o->lengths[i];
        const double peak = o->no_peak ? 0.0 : sgemm_peak();
        double layer, gemms, best, mb;
        const tf_status s = time_length(enc, o, T, &layer, &best, &mb);
        if (s) {
            fprintf(stderr, "tfenc-bench: %s: %s\n", tf_status_name(s), tf_last_error());
            return 1;
        }
        if (gemm_floor_time(o->batch, T, o->d_model, o->heads, o->d_ff, o->layers, o->threads,
                            o->min_time, &gemms, &best)) {
            fprintf(stderr, "tfenc-bench: --gemm-floor: out of memory at T = %d\n", T);
            return 1;
        }
        const double gflop = layer_flops(o, cfg, T) / 1e9;
        printf("%7d %11.2f %11.2f %12.1f%% %11.1f %14.1f%% %14.1f%%\n", T, layer * 1e3, gemms * 1e3,
               100 * gemms / layer, peak, peak > 0 ? 100 * gflop / layer / peak : 0.0,
               peak > 0 ? 100 * gflop / gemms / peak : 0.0);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_options o;
    if (parse_options(argc, argv, &o))
        return 2;
    if (o.tokenize)
        return bench_tokenize(o.tokenize, o.text_file, o.min_time);
    tf_config cfg;
    if (arch_config(&o, &cfg))
        return 2;
    if (o.gemm_floor && strcmp(o.arch, "bert") != 0) {
        fprintf(stderr, "tfenc-bench: --gemm-floor issues BERT's products only, not --arch %s's\n",
                o.arch);
        return 2;
    }
    tf_encoder *enc;
    tf_status s = tf_encoder_create(&cfg, &enc);
    if (s) {
        fprintf(stderr, "tfenc-bench: %s: %s\n", tf_status_name(s), tf_last_error());
        return 1;
    }
    printf("libtfenc %s bench: --arch %s, D %d, H %d, F %d, L %d, batch %d, n_threads %d\n",
           tf_version_string(), o.arch, o.d_model, o.heads, o.d_ff, o.layers, o.batch, o.threads);
    print_runtime();
    printf("flops per layer and sequence: 8*T*D^2 + 4*T*D*F (6*T*D*F when gated) + 4*T*K*D, "
           "K = T (global layers) or min(T, W + 1) (local, window W)\n");
    if (o.no_peak)
        printf("sgemm peak: not measured (--no-peak)\n\n");
    else
        printf("sgemm peak: cblas_sgemm 2048^3 on the same threads, best of 5, measured just "
               "before each length (the machine's speed drifts)\n\n");
    printf("forward MB: the call's peak resident memory beyond the weights and the caller's "
           "input and output\n\n");
    printf("%7s %11s %11s %10s %11s %9s %14s\n", "T", "median ms", "min ms", "GFLOP/s", "peak GF/s",
           "of peak", "forward MB");
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (csv)
        fprintf(csv, "T,median_ms,min_ms,gflops,fraction_of_peak,forward_mb,sgemm_peak_gflops\n");
    FILE *json = o.json ? fopen(o.json, "w") : NULL;
    if (json)
        fprintf(
            json,
            "{\"arch\": \"%s\", \"d_model\": %d, \"n_heads\": %d, \"d_ff\": %d, \"n_layers\": %d, "
            "\"batch\": %d, \"n_threads\": %d, \"blas\": \"%s\", \"blas_threads\": %d, "
            "\"rows\": [",
            o.arch, o.d_model, o.heads, o.d_ff, o.layers, o.batch, o.threads, blas_name(),
            blas_threads_get());
    for (int i = 0; i < o.n_lengths && s == TF_OK; i++) {
        double median, best, extra;
        const double peak = o.no_peak ? 0.0 : sgemm_peak();
        s = time_length(enc, &o, o.lengths[i], &median, &best, &extra);
        if (s)
            break;
        const double gflops = layer_flops(&o, &cfg, o.lengths[i]) / median / 1e9;
        printf("%7d %11.2f %11.2f %10.1f %11.1f %8.1f%% %14.1f\n", o.lengths[i], median * 1e3,
               best * 1e3, gflops, peak, peak > 0 ? 100 * gflops / peak : 0.0, extra);
        fflush(stdout);
        if (csv)
            fprintf(csv, "%d,%.4f,%.4f,%.2f,%.4f,%.1f,%.2f\n", o.lengths[i], median * 1e3,
                    best * 1e3, gflops, peak > 0 ? gflops / peak : 0.0, extra, peak);
        if (json)
            fprintf(
                json,
                "%s{\"T\": %d, \"median_ms\": %.4f, \"min_ms\": %.4f, \"gflops\": %.2f, "
                "\"sgemm_peak_gflops\": %.2f, \"fraction_of_peak\": %.4f, \"forward_mb\": %.1f}",
                i ? ", " : "", o.lengths[i], median * 1e3, best * 1e3, gflops, peak,
                peak > 0 ? gflops / peak : 0.0, extra);
    }
    if (csv)
        fclose(csv);
    if (json) {
        fprintf(json, "]}\n");
        fclose(json);
    }
    if (s == TF_OK && o.varlen)
        s = bench_varlen(enc, &o);
    if (s == TF_OK && o.concurrent > 0)
        s = bench_concurrent(enc, &o);
    if (s)
        fprintf(stderr, "tfenc-bench: %s: %s\n", tf_status_name(s), tf_last_error());
    const int floor_failed = s == TF_OK && o.gemm_floor && bench_gemm_floor(enc, &cfg, &o);
    tf_encoder_destroy(enc);
    return s || floor_failed ? 1 : 0;
}
