/* image_cli.c — `tfenc embed --image` and `tfenc classify --image`: the
 * command line, the files read a batch at a time (never all at once), the
 * library's calls and the output (embed: text, json, jsonl or npy as
 * `tfenc embed` writes vectors; classify: the top-k labels, a classifier's
 * or, with --labels, a whole CLIP or SigLIP folder's zero-shot ones). */
#define _POSIX_C_SOURCE 200809L
#include "image_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_output.h"
#include "model_arg.h"
#include "npy.h"
#include "options.h"
#include "out_file.h"
#include "pipeline_cli.h"
#include "text_lines.h"
#include "tfenc.h"

/* The largest image file read (the library bounds the pixels). */
#define MAX_FILE_BYTES (256u << 20)
/* transformers' ZeroShotImageClassificationPipeline's hypothesis_template default. */
#define DEFAULT_TEMPLATE "This is a photo of {}."
/* transformers' ImageClassificationPipeline top_k default. */
enum { DEFAULT_TOP_K = 5, MAX_BATCH = 4096, MAX_THREADS = 1024 };

typedef enum image_output { OUT_TEXT, OUT_JSON, OUT_JSONL, OUT_NPY } image_output;
static const char *const output_names[] = {"text", "json", "jsonl", "npy"};
_Static_assert(sizeof output_names / sizeof *output_names == OUT_NPY + 1,
               "a name for every output");

typedef struct image_options {
    const char *command; /* "embed", "classify" */
    cli_model source;
    const char *model;  /* the folder --model names (resolved) */
    const char **paths; /* [n] the image files: --image's, the other arguments, stdin's */
    size_t n;
    text_lines lines; /* --image -: the paths on standard input */
    int read_stdin;
    int32_t batch_size, threads, top_k, normalize;
    image_output output;
    const char *out; /* --out FILE (embed), NULL: stdout */
    /* classify --labels: zero-shot over these labels, each put into the template */
    const char *labels_arg;   /* --labels "a cat,a dog" */
    const char *template_arg; /* --template, "{}" marking the label */
    char *labels_text;        /* labels_arg with each ',' made a NUL */
    const char **labels;      /* [n_labels] into labels_text */
    char **hypotheses;        /* [n_labels] each label in the template (malloc'ed) */
    size_t n_labels;
} image_options;

int image_cli_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--image"))
            return 1;
    return 0;
}

static void embed_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc embed --model DIR_OR_ID --image FILE [FILE ...] [--normalize]\n"
            "                   [--output text|json|jsonl|npy] [--out FILE]\n"
            "                   " PIPELINE_CLI_JOB_OPTIONS "\n"
            "One vector per image file (JPEG, PNG or WebP; --image - reads paths from\n"
            "standard input, one a line) from an image-embedding folder (ViT, CLIP, SigLIP;\n"
            "sentence-transformers' CLIP): decoded and preprocessed as its\n"
            "preprocessor_config.json says, as transformers does (docs/images.md).\n"
            "--normalize: unit length. --output as tfenc embed's: text (a line of numbers\n"
            "an image), json {\"dim\", \"embeddings\"}, jsonl {\"index\", \"embedding\"} a\n"
            "line, npy [N, D] float32 (with --out FILE).\n");
    cli_model_usage(out, "");
}

static void classify_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc classify --model DIR_OR_ID --image FILE [FILE ...] [--top-k K]\n"
            "                      [--json] " PIPELINE_CLI_JOB_OPTIONS "\n"
            "The label probabilities of each image file (JPEG, PNG or WebP; --image - reads\n"
            "paths from standard input) from a ViTForImageClassification folder, as\n"
            "transformers' image-classification pipeline: softmax (sigmoid for one label or\n"
            "multi-label), the K best (default %d), best first. One line per label: the\n"
            "label, its score and the file, tab-separated; --json: a list of {\"image\",\n"
            "\"labels\": [{\"label\", \"score\"}, ...]}.\n"
            "--labels \"A,B,...\" [--template T]: zero-shot, with a whole CLIP or SigLIP\n"
            "folder (both towers and a tokenizer), as transformers'\n"
            "zero-shot-image-classification pipeline: each label (comma-separated) put into\n"
            "the template at its {} (default \"%s\"), its text compared\n"
            "with each image: CLIP's softmax over the labels, SigLIP's sigmoid.\n",
            DEFAULT_TOP_K, DEFAULT_TEMPLATE);
    cli_model_usage(out, "");
}

/* --image FILE, or a FILE argument. */
static int add_path(image_options *o, const char *path)
{
    if (!strcmp(path, TEXT_LINES_STDIN))
        o->read_stdin = 1;
    else
        o->paths[o->n++] = path;
    return 1;
}

/* --output FORMAT: 1, or -1 after a message. */
static int set_output(cli_args *a, const char *flag, image_options *o)
{
    const char *name = NULL;
    const int rc = cli_string(a, flag, "text, json, jsonl or npy", &name);
    for (int f = 0; rc > 0 && f <= OUT_NPY; f++)
        if (!strcmp(name, output_names[f])) {
            o->output = (image_output)f;
            return 1;
        }
    return rc > 0 ? cli_refuse(a->command, flag, "text, json, jsonl or npy", name) : rc;
}

static int take(cli_args *a, const char *arg, void *user)
{
    image_options *o = user;
    const int embed = !strcmp(o->command, "embed");
    if (!strcmp(arg, "--image")) {
        const char *path = NULL;
        const int rc = cli_string(a, arg, "an image file or - (paths on standard input)", &path);
        return rc > 0 ? add_path(o, path) : rc;
    }
    if (arg[0] != '-' || !strcmp(arg, TEXT_LINES_STDIN))
        return add_path(o, arg);
    if (!strcmp(arg, "--json")) {
        o->output = OUT_JSON;
        return 1;
    }
    if (embed && !strcmp(arg, "--normalize")) {
        o->normalize = 1;
        return 1;
    }
    if (embed && !strcmp(arg, "--output"))
        return set_output(a, arg, o);
    if (!strcmp(arg, "--batch-size"))
        return cli_int(a, arg, 1, MAX_BATCH, &o->batch_size);
    if (!strcmp(arg, "--threads"))
        return cli_int(a, arg, 1, MAX_THREADS, &o->threads);
    if (!embed && !strcmp(arg, "--top-k"))
        return cli_int(a, arg, 1, INT32_MAX, &o->top_k);
    if (embed && !strcmp(arg, "--out"))
        return cli_string(a, arg, "an output file", &o->out);
    if (!embed && !strcmp(arg, "--labels"))
        return cli_string(a, arg, "labels, comma-separated", &o->labels_arg);
    if (!embed && !strcmp(arg, "--template"))
        return cli_string(a, arg, "a template with {} where the label goes", &o->template_arg);
    return cli_model_option(a, arg, &o->source);
}

/* --labels split at its commas and put into --template's {}: 0, or
 * CLI_USAGE / CLI_FAILED after a message. */
static int split_labels(image_options *o)
{
    const char *template = o->template_arg ? o->template_arg : DEFAULT_TEMPLATE;
    const char *mark = strstr(template, "{}");
    if (o->template_arg && !o->labels_arg) {
        cli_error(o->command, "--template: only with --labels");
        return CLI_USAGE;
    }
    if (!mark) {
        cli_error(o->command, "--template '%s': no {} where the label goes", template);
        return CLI_USAGE;
    }
    size_t n = 1;
    for (const char *c = o->labels_arg; *c; c++)
        n += *c == ',';
    o->labels_text = strdup(o->labels_arg);
    o->labels = calloc(n, sizeof *o->labels);
    o->hypotheses = calloc(n, sizeof *o->hypotheses);
    if (!o->labels_text || !o->labels || !o->hypotheses) {
        cli_error(o->command, "out of memory");
        return CLI_FAILED;
    }
    for (char *label = o->labels_text, *next; label; label = next) {
        next = strchr(label, ',');
        if (next)
            *next++ = '\0';
        if (!*label) {
            cli_error(o->command, "--labels '%s': label %zu is empty", o->labels_arg, o->n_labels);
            return CLI_USAGE;
        }
        const int head = (int)(mark - template);
        const size_t bytes = strlen(template) + strlen(label) - 1;
        if (!(o->hypotheses[o->n_labels] = malloc(bytes))) {
            cli_error(o->command, "out of memory");
            return CLI_FAILED;
        }
        snprintf(o->hypotheses[o->n_labels], bytes, "%.*s%s%s", head, template, label, mark + 2);
        o->labels[o->n_labels++] = label;
    }
    return 0;
}

/* 0 with *o filled and --model resolved; else an exit status (0 after
 * --help) after a message. */
static int parse(image_options *o, const char *command, void (*usage)(FILE *out), int argc,
                 char **argv)
{
    *o = (image_options){.command = command, .source = CLI_MODEL_INIT, .top_k = DEFAULT_TOP_K};
    cli_args a = cli_args_start(command, usage, argc, argv);
    if (!(o->paths = malloc((size_t)argc * sizeof *o->paths))) {
        cli_error(command, "out of memory");
        return CLI_FAILED;
    }
    const int rc = cli_parse(&a, take, o);
    if (rc)
        return cli_parse_status(rc);
    if (!o->source.model)
        return cli_parse_status(cli_usage_error(&a));
    if (o->read_stdin && text_lines_read(command, "--image", TEXT_LINES_STDIN, &o->lines))
        return CLI_FAILED;
    if (o->lines.n) {
        const char **paths = realloc(o->paths, (o->n + o->lines.n) * sizeof *paths);
        if (!paths) {
            cli_error(command, "--image -: cannot hold %zu paths", o->lines.n);
            return CLI_FAILED;
        }
        o->paths = paths;
        memcpy(paths + o->n, o->lines.lines, o->lines.n * sizeof *paths);
        o->n += o->lines.n;
    }
    if (!o->n) {
        cli_error(command, "--image: no image file given");
        return CLI_USAGE;
    }
    if (o->output == OUT_NPY && !o->out && isatty(STDOUT_FILENO)) {
        cli_error(command, "--output npy: standard output is a terminal; pass --out FILE");
        return CLI_USAGE;
    }
    const int labels_rc = o->labels_arg || o->template_arg ? split_labels(o) : 0;
    if (labels_rc)
        return labels_rc;
    int status = 0;
    o->model = cli_model_path(command, &o->source, &status);
    return o->model ? 0 : status;
}

static void options_free(image_options *o)
{
    for (size_t i = 0; o->hypotheses && i < o->n_labels; i++)
        free(o->hypotheses[i]);
    free(o->hypotheses);
    free(o->labels);
    free(o->labels_text);
    free(o->paths);
    text_lines_free(&o->lines);
    cli_model_free(&o->source);
}

/* ---- Files in --------------------------------------------------------------------------- */

/* The bytes of path into *data (malloc'ed), *size: 0, or CLI_FAILED after
 * a message naming the file. */
int image_cli_read(const char *command, const char *path, uint8_t **data, size_t *size)
{
    *data = NULL, *size = 0;
    FILE *f = fopen(path, "rb");
    struct stat st;
    const char *why = !f                         ? strerror(errno)
        : fstat(fileno(f), &st) != 0             ? strerror(errno)
        : !S_ISREG(st.st_mode)                   ? "not a regular file"
        : (uintmax_t)st.st_size > MAX_FILE_BYTES ? "larger than 256 MiB"
                                                 : NULL;
    if (!why && !(*data = malloc(st.st_size ? (size_t)st.st_size : 1)))
        why = "out of memory";
    if (!why && fread(*data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        why = ferror(f) ? strerror(errno) : "it shrank while read";
    if (f)
        fclose(f);
    if (why) {
        cli_error(command, "%s: cannot read: %s", path, why);
        free(*data);
        *data = NULL;
        return CLI_FAILED;
    }
    *size = (size_t)st.st_size;
    return 0;
}

/* The library's message for the call's image `first + i` ("image 3: ...")
 * with the file's path in its place. */
static int blame_file(const image_options *o, tf_status s)
{
    const char *message = tf_last_error();
    static const char prefix[] = "image ";
    char *end = NULL;
    const int numbered = !strncmp(message, prefix, sizeof prefix - 1) &&
        message[sizeof prefix - 1] >= '0' && message[sizeof prefix - 1] <= '9';
    const unsigned long long index = numbered ? strtoull(message + sizeof prefix - 1, &end, 10) : 0;
    if (numbered && index < o->n && !strncmp(end, ": ", 2))
        cli_error(o->command, "%s: %s", o->paths[index], end + 2);
    else
        cli_error(o->command, "%s", message);
    return CLI_FAILED;
}

/* A library call on a batch of the files. */
typedef tf_status image_call(const image_options *o, const tf_pipeline *p, const tf_image_args *a);

static tf_status embed_call(const image_options *o, const tf_pipeline *p, const tf_image_args *a)
{
    (void)o;
    return tf_pipeline_embed_images(p, a);
}

static tf_status classify_call(const image_options *o, const tf_pipeline *p, const tf_image_args *a)
{
    (void)o;
    return tf_pipeline_classify_images(p, a);
}

static tf_status zero_shot_call(const image_options *o, const tf_pipeline *p,
                                const tf_image_args *a)
{
    return tf_pipeline_zero_shot(p, a, (const char *const *)o->hypotheses, o->n_labels);
}

/* Every file through call into out [n, width], a batch of files read at a
 * time: 0, or CLI_FAILED after a message. */
static int run_files(const image_options *o, const tf_pipeline *p, image_call *call, size_t width,
                     float *out)
{
    const size_t batch = o->batch_size ? (size_t)o->batch_size : PIPELINE_CLI_BATCH;
    uint8_t **data = calloc(batch, sizeof *data);
    size_t *sizes = calloc(batch, sizeof *sizes);
    int rc = data && sizes ? 0 : CLI_FAILED;
    if (rc)
        cli_error(o->command, "out of memory");
    cli_job job;
    cli_job_start(&job, o->command, "images", o->n, o->source.progress);
    for (size_t first = 0; rc == 0 && first < o->n; first += batch) {
        const size_t n = o->n - first < batch ? o->n - first : batch;
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = image_cli_read(o->command, o->paths[first + i], &data[i], &sizes[i]);
        tf_image_args a;
        tf_image_args_init(&a);
        a.n = n, a.data = (const uint8_t *const *)data, a.sizes = sizes;
        a.normalize = o->normalize, a.n_threads = o->threads, a.batch_size = o->batch_size;
        a.out = out + first * width, a.out_len = n * width, a.first_index = first;
        tf_status s = TF_OK;
        if (rc == 0 && (s = call(o, p, &a)) != TF_OK)
            rc = blame_file(o, s);
        for (size_t i = 0; i < n; i++) {
            free(data[i]);
            data[i] = NULL;
        }
        cli_job_step(&job, first + n);
    }
    cli_job_end(&job);
    free(data);
    free(sizes);
    return rc;
}

/* ---- embed ------------------------------------------------------------------------------- */

static void print_vectors(FILE *f, const image_options *o, const float *v, size_t D)
{
    const int json = o->output == OUT_JSON, jsonl = o->output == OUT_JSONL;
    char number[CLI_FLOAT_CHARS];
    if (json)
        fprintf(f, "{\"dim\": %zu, \"embeddings\": [", D);
    for (size_t i = 0; i < o->n; i++) {
        if (jsonl)
            fprintf(f, "{\"index\": %zu, \"embedding\": [", i);
        else if (json)
            fprintf(f, "%s[", i ? ", " : "");
        for (size_t k = 0; k < D; k++)
            fprintf(f, "%s%s", k ? (json || jsonl ? ", " : " ") : "",
                    cli_float_text(number, v[i * D + k]));
        fputs(jsonl ? "]}\n" : json ? "]" : "\n", f);
    }
    if (json)
        fputs("]}\n", f);
}

/* vectors [n, D] as --output says on stdout or in --out: 0, or CLI_FAILED. */
static int write_vectors(const image_options *o, const float *v, size_t D)
{
    out_file out;
    int ok = out_file_open(&out, o->out) == 0;
    const int64_t dims[2] = {(int64_t)o->n, (int64_t)D};
    if (ok && o->output == OUT_NPY && npy_fwrite_f32(out.f, v, 2, dims) != 0) {
        snprintf(out.err, sizeof out.err, "%s: cannot write: %s",
                 o->out ? o->out : "standard output", strerror(errno ? errno : EIO));
        out_file_discard(&out);
        ok = 0;
    } else if (ok) {
        if (o->output != OUT_NPY)
            print_vectors(out.f, o, v, D);
        ok = out_file_close(&out) == 0;
    }
    if (!ok) {
        cli_error(o->command, "%s%s", o->out ? "--out " : "", out.err);
        return CLI_FAILED;
    }
    if (o->out)
        cli_error(o->command, "wrote %zu vectors of %zu floats to %s", o->n, D, o->out);
    return 0;
}

int image_cli_embed(int argc, char **argv)
{
    image_options o;
    int rc = parse(&o, "embed", embed_usage, argc, argv);
    tf_pipeline *p = rc || !o.model
        ? NULL
        : pipeline_cli_load("embed", o.model, 0, PIPELINE_CLI_KIND(TF_PIPELINE_IMAGE_EMBEDDING));
    if (!rc && !p)
        rc = CLI_FAILED;
    const size_t D = p ? (size_t)tf_pipeline_dim(p) : 0;
    float *vectors = p ? malloc(o.n * D * sizeof *vectors) : NULL; /* [n, D] */
    if (p && !vectors) {
        cli_error("embed", "out of memory");
        rc = CLI_FAILED;
    }
    if (!rc)
        rc = run_files(&o, p, embed_call, D, vectors);
    if (!rc)
        rc = write_vectors(&o, vectors, D);
    free(vectors);
    tf_pipeline_destroy(p);
    options_free(&o);
    return rc;
}

/* ---- classify ------------------------------------------------------------------------- */

static const float *ranked_probs; /* what by_score compares (qsort has no user pointer) */

/* Best first; equal scores in label order. */
static int by_score(const void *a, const void *b)
{
    const int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    const float x = ranked_probs[i], y = ranked_probs[j];
    return x > y ? -1 : x < y ? 1 : (i > j) - (i < j);
}

/* Image i's top-k of labels (names [labels]) by probs [labels]; order [labels] scratch. */
static void print_labels(const image_options *o, const char *const *names, int32_t labels, size_t i,
                         const float *probs, int32_t *order)
{
    const int32_t k = o->top_k < labels ? o->top_k : labels;
    for (int32_t l = 0; l < labels; l++)
        order[l] = l;
    ranked_probs = probs;
    qsort(order, (size_t)labels, sizeof *order, by_score);
    char number[CLI_FLOAT_CHARS];
    if (o->output == OUT_JSON) {
        printf("%s{\"image\": ", i ? ", " : "");
        pipeline_cli_json_string(stdout, o->paths[i]);
        printf(", \"labels\": [");
    }
    for (int32_t r = 0; r < k; r++) {
        const char *label = names[order[r]];
        cli_float_text(number, probs[order[r]]);
        if (o->output != OUT_JSON) {
            printf("%s\t%s\t%s\n", label, number, o->paths[i]);
            continue;
        }
        printf("%s{\"label\": ", r ? ", " : "");
        pipeline_cli_json_string(stdout, label);
        printf(", \"score\": %s}", number);
    }
    if (o->output == OUT_JSON)
        printf("]}");
}

/* names [L] = the labels' names: --labels', else the classifier's. */
static void label_names(const image_options *o, const tf_pipeline *p, const char **names, size_t L)
{
    for (size_t l = 0; l < L; l++)
        names[l] = o->labels ? o->labels[l] : tf_pipeline_label(p, (int32_t)l);
}

int image_cli_classify(int argc, char **argv)
{
    image_options o;
    int rc = parse(&o, "classify", classify_usage, argc, argv);
    const tf_pipeline_kind kind = o.labels ? TF_PIPELINE_IMAGE_EMBEDDING
                                           : TF_PIPELINE_IMAGE_CLASSIFIER;
    tf_pipeline *p = rc || !o.model
        ? NULL
        : pipeline_cli_load("classify", o.model, 0, PIPELINE_CLI_KIND(kind));
    if (!rc && !p)
        rc = CLI_FAILED;
    const size_t L = !p ? 0 : o.labels ? o.n_labels : (size_t)tf_pipeline_dim(p);
    float *probs = p ? malloc(o.n * L * sizeof *probs) : NULL; /* [n, L] */
    int32_t *order = p ? malloc(L * sizeof *order) : NULL;     /* [L] */
    const char **names = p ? malloc(L * sizeof *names) : NULL; /* [L] */
    if (p && (!probs || !order || !names)) {
        cli_error("classify", "out of memory");
        rc = CLI_FAILED;
    }
    if (!rc)
        rc = run_files(&o, p, o.labels ? zero_shot_call : classify_call, L, probs);
    if (!rc)
        label_names(&o, p, names, L);
    if (!rc && o.output == OUT_JSON)
        printf("[");
    for (size_t i = 0; !rc && i < o.n; i++)
        print_labels(&o, names, (int32_t)L, i, probs + i * L, order);
    if (!rc && o.output == OUT_JSON)
        printf("]\n");
    free(probs);
    free(order);
    free(names);
    tf_pipeline_destroy(p);
    options_free(&o);
    return rc;
}
