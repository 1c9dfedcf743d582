/* create.c — `tfenc create OUT.safetensors [sizes]`: a model with
 * deterministic random weights (the library's PyTorch-like initialisation),
 * e.g. over a vocab.txt, to try `tfenc embed` or `explain` on. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "tfenc.h"

typedef struct create_options {
    tf_config cfg;
    const char *out, *vocab;
    int vocab_size_given;
} create_options;

static void create_usage(FILE *out)
{
    char positions[128], activations[128];
    fprintf(out,
            "usage: tfenc create OUT.safetensors [--d-model 512] [--heads 8] [--d-ff 2048]\n"
            "                    [--layers 1] [--vocab-size N | --vocab vocab.txt]\n"
            "                    [--positions %s] [--max-positions N]\n"
            "                    [--token-types N] [--embedding-norm] [--norm-first]\n"
            "                    [--final-norm] [--pooler] [--activation %s]\n"
            "                    [--seed S]\n"
            "Writes a model with deterministic random weights (PyTorch's initialisation),\n"
            "e.g. one whose vocabulary is a vocab.txt, to try tfenc embed or explain on.\n"
            "Sizes are checked against the library's limits; S is 0..2^64-1.\n",
            cli_names(tf_position_name, "|", "|", positions, sizeof positions),
            cli_names(tf_activation_name, "|", "|", activations, sizeof activations));
}

/* A flag without a value: 1 if flag is one (and set), else 0. */
static int set_switch(tf_config *c, const char *flag)
{
    int32_t *field = !strcmp(flag, "--embedding-norm") ? &c->embedding_norm
        : !strcmp(flag, "--norm-first")                ? &c->norm_placement
        : !strcmp(flag, "--final-norm")                ? &c->final_norm
        : !strcmp(flag, "--pooler")                    ? &c->pooler
                                                       : NULL;
    if (field)
        *field = 1; /* TF_NORM_PRE for --norm-first */
    return field != NULL;
}

/* A flag with a value: 1 if flag is one (and set), -1 on a bad value, 0
 * for another flag. */
static int set_value(cli_args *a, const char *flag, create_options *o)
{
    tf_config *c = &o->cfg;
    const cli_int_flag sizes[] = {
        {"--d-model", 1, TF_MAX_D_MODEL, &c->d_model},
        {"--heads", 1, TF_MAX_D_MODEL, &c->n_heads},
        {"--d-ff", 1, TF_MAX_D_FF, &c->d_ff},
        {"--layers", 1, TF_MAX_LAYERS, &c->n_layers},
        {"--vocab-size", 0, TF_MAX_VOCAB, &c->vocab_size},
        {"--max-positions", 0, TF_MAX_POSITIONS, &c->max_positions},
        {"--token-types", 0, TF_MAX_TOKEN_TYPES, &c->n_token_types},
    };
    o->vocab_size_given |= !strcmp(flag, "--vocab-size");
    const int rc = cli_int_table(a, flag, CLI_TABLE(sizes));
    if (rc)
        return rc;
    if (!strcmp(flag, "--positions"))
        return cli_enum(a, flag, tf_position_name, tf_position_from_name, &c->position);
    if (!strcmp(flag, "--activation"))
        return cli_enum(a, flag, tf_activation_name, tf_activation_from_name, &c->activation);
    if (!strcmp(flag, "--seed"))
        return cli_u64(a, flag, &c->seed);
    if (!strcmp(flag, "--vocab"))
        return cli_string(a, flag, "a vocab.txt", &o->vocab);
    return 0;
}

static int take_create(cli_args *a, const char *arg, void *user)
{
    create_options *o = user;
    if (arg[0] != '-')
        return cli_positional(a, "output file", arg, &o->out);
    return set_switch(&o->cfg, arg) ? 1 : set_value(a, arg, o);
}

/* 0 with *o filled; 1 after --help; -1 after a message. */
static int parse_create(int argc, char **argv, create_options *o)
{
    cli_args a = cli_args_start("create", create_usage, argc, argv);
    *o = (create_options){0};
    tf_config_init(&o->cfg);
    const int rc = cli_parse(&a, take_create, o);
    if (rc)
        return rc;
    if (o->vocab && o->vocab_size_given) {
        cli_error(a.command, "--vocab and --vocab-size both set the vocabulary size: give one");
        return -1;
    }
    return o->out ? 0 : cli_usage_error(&a);
}

int tfenc_create(int argc, char **argv)
{
    create_options o;
    const int parsed = parse_create(argc, argv, &o);
    if (parsed)
        return cli_parse_status(parsed);
    tf_tokenizer *tok = NULL;
    tf_encoder *enc = NULL;
    tf_status s = o.vocab ? tf_tokenizer_load(o.vocab, NULL, &tok) : TF_OK;
    if (s == TF_OK && tok)
        o.cfg.vocab_size = tf_tokenizer_vocab_size(tok);
    if (s == TF_OK)
        s = tf_encoder_create(&o.cfg, &enc);
    if (s == TF_OK)
        s = tf_encoder_save(enc, o.out);
    if (s == TF_OK)
        printf("wrote %s: d_model %d, %d heads, d_ff %d, %d layers, vocab_size %d\n", o.out,
               (int)o.cfg.d_model, (int)o.cfg.n_heads, (int)o.cfg.d_ff, (int)o.cfg.n_layers,
               (int)o.cfg.vocab_size);
    else
        cli_error("create", "%s", tf_last_error());
    tf_tokenizer_destroy(tok);
    tf_encoder_destroy(enc);
    return s ? CLI_FAILED : 0;
}
