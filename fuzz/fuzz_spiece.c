/* fuzz_spiece.c — SentencePiece model files (spiece.model, SigLIP's
 * tokenizer) on arbitrary bytes: the input is written to a file named
 * spiece.model in a folder of its own (the loader reads paths, and knows the
 * file by its name), loaded as SiglipTokenizer's, and removed; a model that
 * loads encodes a fixed text and a pair and decodes the ids. The corpus
 * (corpus/spiece) is tests/data/gen_text_tokenizers.py's Unigram model
 * without its precompiled_charsmap, and with it cut short. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tfenc.h"
#include "tokenizer_use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The folder the input goes to: one per process (libFuzzer's -jobs). */
static const char *folder(void)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/tfenc-fuzz-spiece-%ld", (long)getpid());
    return path;
}

/* The text and pair each loaded tokenizer encodes. */
static const char text[] = "Hello, Wörld! \xe2\x96\x81 photo\t of 你好 </s> 123 😀 e\xcc\x81";
static const char pair[] = "a pair";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/spiece.model", folder());
    if (mkdir(folder(), 0700) != 0 && access(folder(), W_OK) != 0)
        return 0;
    FILE *f = fopen(path, "wb");
    int written = 0;
    if (f) {
        written = fwrite(data, 1, size, f) == size;
        fclose(f);
    }
    tf_tokenizer *tok;
    const tf_status loaded = written ? tf_tokenizer_load(path, NULL, &tok) : TF_ERR_IO;
    unlink(path); /* the replay in meson test leaves nothing in /tmp */
    rmdir(folder());
    if (loaded == TF_OK) {
        use_tokenizer(tok, text, sizeof text - 1, pair, sizeof pair - 1);
        tf_tokenizer_destroy(tok);
    }
    return 0;
}
