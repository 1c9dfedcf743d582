/* tfenc.c — the tfenc command-line program: dispatches to a subcommand,
 * then makes sure what it printed reached stdout. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "tfenc.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  explain    run the tutorial's encoder on a sentence and print every step:\n"
            "             each tensor's name, shape, shape algebra and real values\n"
            "  embed      sentence vectors of texts: WordPiece, the encoder, pooling; or a\n"
            "             sentence-transformers folder's own pipeline\n"
            "  rerank     a cross-encoder's scores of (query, document) pairs, best first\n"
            "  classify   a sequence classifier's label probabilities of texts\n"
            "  fill-mask  a masked-LM's best tokens for each mask token of texts\n"
            "  tokenize   the ids (--json: tokens, offsets, type ids) a tokenizer.json, a\n"
            "             model folder or a vocab.txt gives texts\n"
            "  serve      an HTTP server of a model folder: OpenAI's /v1/embeddings and\n"
            "             text-embeddings-inference's routes, with dynamic batching\n"
            "  create     write a model with deterministic random weights\n"
            "  info       what forward calls run on here (BLAS, its kernels, threads); with\n"
            "             a file, a checkpoint's format, the configuration it implies, and\n"
            "             its tensors with what each maps to\n"
            "  version    print the library version (also: tfenc --version, tfenc -V)\n"
            "\n"
            "tfenc COMMAND --help shows a command's options. Exit status: 0 on success,\n"
            "1 when the command failed (a file, the model, or output that could not be\n"
            "written), 2 for a bad command line.\n");
}

static int version(int argc, char **argv)
{
    if (argc > 1) {
        cli_error("version", "unknown option '%s'", argv[1]);
        return CLI_USAGE;
    }
    printf("libtfenc %s\n", tf_version_string());
    return 0;
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"explain", tfenc_explain},     {"embed", tfenc_embed},       {"rerank", tfenc_rerank},
    {"classify", tfenc_classify},   {"tokenize", tfenc_tokenize}, {"serve", tfenc_serve},
    {"create", tfenc_create},       {"info", tfenc_info},         {"version", version},
    {"fill-mask", tfenc_fill_mask},
};

/* Every write to stdout went through its buffer: a failed one (a full disk,
 * a closed pipe) leaves the error flag set, and the last ones fail in the
 * flush or close. Either means the output is lost: a failure. */
static int close_stdout(const char *who)
{
    errno = 0;
    const int failed = fflush(stdout) != 0 || ferror(stdout);
    const int saved = errno;
    if (fclose(stdout) == 0 && !failed)
        return 0;
    cli_line("%s: standard output: %s", who,
             saved       ? strerror(saved)
                 : errno ? strerror(errno)
                         : "a write failed");
    return -1;
}

static int find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return (int)i;
    return -1;
}

/* tfenc without a command, with --help, --version (-V) or an unknown one. */
static int no_command(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
        return version(argc - 1, argv + 1);
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = argc > 1 ? cli_nearest(argv[1], names, sizeof names / sizeof names[0])
                                : NULL;
    if (near)
        cli_line("tfenc: unknown command '%s'; did you mean '%s'?", argv[1], near);
    else if (argc > 1)
        cli_line("tfenc: unknown command '%s'", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    const int c = argc > 1 ? find_command(argv[1]) : -1;
    int rc = c >= 0 ? commands[c].run(argc - 1, argv + 1) : no_command(argc, argv);
    char who[64];
    snprintf(who, sizeof who, "tfenc%s%s", c >= 0 ? " " : "", c >= 0 ? commands[c].name : "");
    if (close_stdout(who) != 0 && rc == 0)
        rc = CLI_FAILED;
    return rc;
}
