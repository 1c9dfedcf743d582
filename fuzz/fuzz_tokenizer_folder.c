/* fuzz_tokenizer_folder.c — a model folder's tokenizer_config.json and
 * special_tokens_map.json on arbitrary bytes: the input's first byte picks
 * the tokenizer file beside them (BERT's vocab.txt, a WordPiece or a
 * byte-level BPE tokenizer.json, linked from tests/data), the rest up to
 * the first NUL is tokenizer_config.json and what follows it
 * special_tokens_map.json (none without a NUL). The folder is loaded; one
 * that loads encodes a text with likely special tokens and a pair, and
 * decodes the ids. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfenc.h"
#include "tokenizer_use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const bases[3][2] = {
    /* [file under TFENC_FUZZ_DATA, its name] */
    {"wordpiece/vocab.txt", "vocab.txt"},
    {"tokenizer_json/bert_uncased/tokenizer.json", "tokenizer.json"},
    {"tokenizer_json/roberta/tokenizer.json", "tokenizer.json"},
};

/* The folder the input goes to: one per process (libFuzzer's -jobs). */
static const char *folder(void)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/tfenc-fuzz-folder-%ld", (long)getpid());
    return path;
}

static void in_folder(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", folder(), name);
}

static int write_file(const char *name, const uint8_t *data, size_t size)
{
    char path[128];
    in_folder(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const int written = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && written;
}

/* The text and pair each loaded tokenizer encodes. */
static const char text[] = "Hello [CLS] <mask> [MASK]x <s>  <pad> [E1]é 你好 😀 </s>";
static const char pair[] = "a [SEP] pair";

/* Removes the folder's files (the replay in meson test leaves nothing in /tmp). */
static void clean(void)
{
    static const char *const names[] = {"vocab.txt", "tokenizer.json", "tokenizer_config.json",
                                        "special_tokens_map.json"};
    char path[128];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        in_folder(path, sizeof path, names[k]);
        unlink(path);
    }
    rmdir(folder());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    clean();
    const char *const *pick = bases[data[0] % 3];
    char target[512], link_path[128];
    snprintf(target, sizeof target, "%s/%s", TFENC_FUZZ_DATA, pick[0]);
    in_folder(link_path, sizeof link_path, pick[1]);
    const uint8_t *config = data + 1, *end = data + size;
    const uint8_t *nul = memchr(config, 0, (size_t)(end - config));
    int ok = mkdir(folder(), 0700) == 0 && symlink(target, link_path) == 0 &&
        write_file("tokenizer_config.json", config, (size_t)((nul ? nul : end) - config));
    if (ok && nul)
        ok = write_file("special_tokens_map.json", nul + 1, (size_t)(end - nul - 1));
    tf_tokenizer *tok;
    if (ok && tf_tokenizer_load(folder(), NULL, &tok) == TF_OK) {
        use_tokenizer(tok, text, sizeof text - 1, pair, sizeof pair - 1);
        tf_tokenizer_destroy(tok);
    }
    clean();
    return 0;
}
