/* info.c — `tfenc info`: what forward calls run on here (the BLAS, its
 * kernels and threads, the vector loops, the threads a call may use); with
 * FILE_OR_DIR, the format of a checkpoint, the configuration it implies and
 * a table of its tensors with what each maps to. A bad file: the error on
 * stderr, exit status 1. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config_view.h"
#include "options.h"
#include "shape_text.h"
#include "tfenc.h"

typedef struct info_options {
    const char *path;
    const char *load_option; /* the first load option given, if any */
    tf_load_options load;
} info_options;

static void info_usage(FILE *out)
{
    fprintf(out, "usage: tfenc info [[load options] FILE_OR_DIR]\nload options:\n");
    cli_load_options_usage(out, "  ");
    fprintf(out,
            "Without a file: what forward calls run on here (the BLAS, the kernels it\n"
            "chose, its thread setting, the build of libtfenc's own loops, the threads a\n"
            "call may use). With one: what a checkpoint holds (a .safetensors file, or a\n"
            "Hugging Face model directory) and how libtfenc maps it; the options supply\n"
            "what the file lacks.\n");
}

static int take_info(cli_args *a, const char *arg, void *user)
{
    info_options *o = user;
    if (arg[0] != '-')
        return cli_positional(a, "checkpoint", arg, &o->path);
    if (!o->load_option)
        o->load_option = arg;
    return cli_load_option(a, arg, &o->load);
}

/* 0 with *o filled; 1 after --help; -1 after a message. */
static int parse_info(int argc, char **argv, info_options *o)
{
    cli_args a = cli_args_start("info", info_usage, argc, argv);
    *o = (info_options){0};
    tf_load_options_init(&o->load);
    const int rc = cli_parse(&a, take_info, o);
    if (rc == 0 && o->load_option && !o->path) {
        cli_error("info", "%s: the load options need a FILE_OR_DIR", o->load_option);
        return -1;
    }
    return rc;
}

static int print_runtime(void)
{
    tf_runtime_info r;
    const tf_status s = tf_runtime_info_get(&r);
    if (s) {
        cli_error("info", "%s", tf_last_error());
        return CLI_FAILED;
    }
    printf("libtfenc %s\nBLAS: %s, kernels %s, its thread setting %d\n  %s\n"
           "vector loops: %s\nthreads a forward call may use: %d\n",
           tf_version_string(), r.blas, r.blas_kernels, (int)r.blas_threads, r.blas_build,
           r.vector_loops, (int)r.max_threads);
    return 0;
}

/* The 0.4.0 fields, on lines of their own when the model has them. */
static void print_modern_fields(const tf_config *c)
{
    if (c->ffn_gated || c->norm_bias || c->skip_first_norm1)
        printf("        feed-forward %s, LayerNorm biases %s, layer 0's norm1 %s\n",
               c->ffn_gated ? "gated" : "plain", c->bias || c->norm_bias ? "yes" : "no",
               c->skip_first_norm1 ? "none" : "yes");
    if (c->position == TF_POSITION_ROTARY) {
        const double theta = config_rotary_theta(c);
        printf("        rotary: %d of d_k %d dimensions, %s pairs, theta %g (local layers %g)",
               (int)config_rotary_dim(c), (int)(c->d_model / c->n_heads),
               c->rotary_interleaved ? "interleaved" : "half-split", theta,
               c->rotary_base_local ? (double)c->rotary_base_local : theta);
        if (c->rotary_ntk_factor && c->rotary_ntk_positions)
            printf(", dynamic NTK factor %g past %d tokens", (double)c->rotary_ntk_factor,
                   (int)c->rotary_ntk_positions);
        else if (c->rotary_ntk_factor)
            printf(", NTK factor %g", (double)c->rotary_ntk_factor);
        if (c->rotary_linear_factor)
            printf(", positions divided by %g", (double)c->rotary_linear_factor);
        printf("\n");
    }
    if (config_embed_projects(c))
        printf("        embeddings: %d wide, projected to d_model %d (embed.project)\n",
               (int)c->embedding_dim, (int)c->d_model);
    if (c->attn_window && c->global_every)
        printf("        local attention: window %d, layers l %% %d == 0 global\n",
               (int)c->attn_window, (int)c->global_every);
    else if (c->attn_window)
        printf("        local attention: window %d in every layer\n", (int)c->attn_window);
    if (c->relative_buckets)
        printf("        relative position bias: %d buckets, max distance %d, shared by every "
               "layer\n",
               (int)c->relative_buckets, (int)config_relative_max_distance(c));
    if (c->qk_norm || c->add_norm1b)
        printf("        LayerNorms on Q and K %s, the input added again after add_norm1 %s\n",
               c->qk_norm ? "yes" : "no", c->add_norm1b ? "yes (norm1b)" : "no");
}

static void print_config(const tf_config *c)
{
    printf("config: d_model %d, n_heads %d (d_k %d), d_ff %d, n_layers %d\n", (int)c->d_model,
           (int)c->n_heads, (int)(c->d_model / c->n_heads), (int)c->d_ff, (int)c->n_layers);
    printf("        vocab_size %d, positions %s", (int)c->vocab_size,
           tf_position_name(c->position));
    if (c->max_positions)
        printf(" (max %d)", (int)c->max_positions);
    if (c->position_offset)
        printf(" from %d, skipping id %d", (int)c->position_offset, (int)c->position_offset - 1);
    printf(", token types %d, embedding norm %s\n", (int)c->n_token_types,
           c->embedding_norm ? "yes" : "no");
    printf("        %s-norm, final norm %s, activation %s, biases %s, pooler %s, "
           "layer_norm_eps %g\n",
           tf_norm_placement_name(c->norm_placement), c->final_norm ? "yes" : "no",
           tf_activation_name(c->activation), c->bias ? "yes" : "no", c->pooler ? "yes" : "no",
           (double)c->layer_norm_eps);
    print_modern_fields(c);
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
        printf("  %-*s  %-5s  %-14s  ", (int)width, t.name, t.dtype,
               shape_text_of(t.dims, t.rank).text);
        if (!t.maps_to)
            printf("(ignored)\n");
        else if (t.parts == 3)
            printf("%s + k + v (stacked)\n", t.maps_to);
        else if (t.parts == 2)
            printf("%s and gate (stacked halves)\n", t.maps_to);
        else
            printf("%s\n", t.maps_to);
    }
}

int tfenc_info(int argc, char **argv)
{
    info_options o;
    const int parsed = parse_info(argc, argv, &o);
    if (parsed)
        return cli_parse_status(parsed);
    if (!o.path)
        return print_runtime();
    const char *path = o.path;
    int32_t is_image = 0;
    if (tf_model_is_image(path, &is_image) == TF_OK && is_image) {
        cli_error("info",
                  "%s: an image model (a vision tower): tfenc info reads text encoders; "
                  "tfenc explain --model %s --image FILE traces it",
                  path, path);
        return CLI_FAILED;
    }
    tf_model_info *info;
    const tf_status s = tf_model_inspect(path, &o.load, &info);
    if (s) {
        cli_error("info", "%s", tf_last_error());
        return CLI_FAILED;
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
