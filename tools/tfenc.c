/* tfenc.c — the tfenc command-line program: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tfenc.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  explain    run the tutorial's encoder on a sentence and print every step:\n"
            "             each tensor's name, shape, shape algebra and real values\n"
            "  embed      sentence vectors of texts: WordPiece, the encoder, pooling\n"
            "  create     write a model with deterministic random weights\n"
            "  info       show a checkpoint's format, the configuration it implies, and\n"
            "             its tensors with what each maps to\n"
            "  version    print the library version\n"
            "\n"
            "tfenc COMMAND --help shows a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "explain") == 0)
        return tfenc_explain(argc - 1, argv + 1);
    if (strcmp(argv[1], "embed") == 0)
        return tfenc_embed(argc - 1, argv + 1);
    if (strcmp(argv[1], "create") == 0)
        return tfenc_create(argc - 1, argv + 1);
    if (strcmp(argv[1], "info") == 0)
        return tfenc_info(argc - 1, argv + 1);
    if (strcmp(argv[1], "version") == 0) {
        printf("libtfenc %s\n", tf_version_string());
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "tfenc: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
