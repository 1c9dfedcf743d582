/* info.c — `tfenc info FILE_OR_DIR`: the format of a checkpoint, the
 * configuration it implies and a table of its tensors with what each maps
 * to. A bad file: the error on stderr, exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tfenc.h"

const char *const tfenc_activation_names[3] = {"gelu", "gelu_tanh", "relu"};
const char *const tfenc_position_names[3] = {"none", "sinusoidal", "learned"};

static void info_usage(FILE *out)
{
    fprintf(out, "usage: tfenc info [--n-heads N] [--activation gelu|gelu_tanh|relu]\n"
                 "                  [--norm-first true|false] [--eps X] FILE_OR_DIR\n"
                 "Shows what a checkpoint holds (a .safetensors file, or a Hugging Face model\n"
                 "directory) and how libtfenc maps it; the options supply what the file lacks.\n");
}

static int index_of(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

int parse_load_option(const char *command, const char *flag, const char *value,
                      tf_load_options *o)
{
    if (!strcmp(flag, "--n-heads")) {
        o->n_heads = value ? atoi(value) : 0;
        if (o->n_heads > 0)
            return 1;
        fprintf(stderr, "tfenc %s: --n-heads needs a positive integer\n", command);
    } else if (!strcmp(flag, "--activation")) {
        o->activation = value ? index_of(value, tfenc_activation_names, 3) : -1;
        if (o->activation >= 0)
            return 1;
        fprintf(stderr, "tfenc %s: --activation is gelu, gelu_tanh or relu\n", command);
    } else if (!strcmp(flag, "--norm-first")) {
        o->norm_placement = value ? index_of(value, (const char *const[]){"false", "true"}, 2) : -1;
        if (o->norm_placement >= 0)
            return 1;
        fprintf(stderr, "tfenc %s: --norm-first is true or false\n", command);
    } else if (!strcmp(flag, "--eps")) {
        o->layer_norm_eps = value ? (float)atof(value) : 0.0f;
        if (o->layer_norm_eps > 0.0f)
            return 1;
        fprintf(stderr, "tfenc %s: --eps needs a positive number\n", command);
    } else {
        return 0;
    }
    return -1;
}

static int parse_options(int argc, char **argv, tf_load_options *o, const char **path)
{
    tf_load_options_init(o);
    *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            info_usage(stdout);
            exit(0);
        }
        if (flag[0] != '-' && !*path) {
            *path = flag;
            continue;
        }
        const int known = parse_load_option("info", flag, value, o);
        if (known < 0)
            return -1;
        if (!known) {
            fprintf(stderr, "tfenc info: unknown option '%s'\n", flag);
            return -1;
        }
        i++;
    }
    if (!*path) {
        info_usage(stderr);
        return -1;
    }
    return 0;
}

static void print_config(const tf_config *c)
{
    printf("config: d_model %d, n_heads %d (d_k %d), d_ff %d, n_layers %d\n", (int)c->d_model,
           (int)c->n_heads, (int)(c->d_model / c->n_heads), (int)c->d_ff, (int)c->n_layers);
    printf("        vocab_size %d, positions %s", (int)c->vocab_size, tfenc_position_names[c->position]);
    if (c->max_positions)
        printf(" (max %d)", (int)c->max_positions);
    printf(", token types %d, embedding norm %s\n", (int)c->n_token_types,
           c->embedding_norm ? "yes" : "no");
    printf("        %s-norm, final norm %s, activation %s, biases %s, pooler %s, "
           "layer_norm_eps %g\n",
           c->norm_placement == TF_NORM_PRE ? "pre" : "post", c->final_norm ? "yes" : "no",
           tfenc_activation_names[c->activation], c->bias ? "yes" : "no", c->pooler ? "yes" : "no",
           (double)c->layer_norm_eps);
}

static void print_tensors(const tf_model_info *info)
{
    const size_t n = tf_model_info_tensor_count(info);
    size_t ignored = 0, width = 4;
    for (size_t i = 0; i < n; i++) {
        tf_file_tensor t;
        tf_model_info_tensor(info, i, &t);
        ignored += t.maps_to == NULL;
        width = strlen(t.name) > width ? strlen(t.name) : width;
    }
    printf("tensors: %zu (%zu used, %zu ignored)\n", n, n - ignored, ignored);
    printf("  %-*s  %-5s  %-14s  %s\n", (int)width, "name", "dtype", "shape", "libtfenc tensor");
    for (size_t i = 0; i < n; i++) {
        tf_file_tensor t;
        tf_model_info_tensor(info, i, &t);
        char shape[128] = "[";
        for (int32_t d = 0; d < t.rank; d++) {
            const size_t used = strlen(shape);
            snprintf(shape + used, sizeof shape - used, d ? ", %lld" : "%lld", (long long)t.dims[d]);
        }
        strncat(shape, "]", sizeof shape - strlen(shape) - 1);
        printf("  %-*s  %-5s  %-14s  ", (int)width, t.name, t.dtype, shape);
        if (!t.maps_to)
            printf("(ignored)\n");
        else if (t.parts == 3)
            printf("%s + k + v (stacked)\n", t.maps_to);
        else
            printf("%s\n", t.maps_to);
    }
}

int tfenc_info(int argc, char **argv)
{
    tf_load_options opts;
    const char *path;
    if (parse_options(argc, argv, &opts, &path))
        return 2;
    tf_model_info *info;
    const tf_status s = tf_model_inspect(path, &opts, &info);
    if (s) {
        fprintf(stderr, "tfenc info: %s: %s\n", tf_status_name(s), tf_last_error());
        return 1;
    }
    tf_config cfg;
    tf_config_init(&cfg);
    tf_model_info_config(info, &cfg);
    printf("file: %s\nformat: %s\n", path, tf_model_info_format(info));
    print_config(&cfg);
    print_tensors(info);
    tf_model_info_destroy(info);
    return 0;
}
