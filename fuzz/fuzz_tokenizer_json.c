/* fuzz_tokenizer_json.c — tokenizer.json loading on arbitrary bytes: the
 * input is written to a file (the loader reads paths), loaded, and the file
 * removed; a file that loads encodes a fixed text and a pair and decodes the
 * ids. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tfenc.h"
#include "tokenizer_use.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file the input goes to: one per process (libFuzzer's -jobs). */
static const char *input_path(void)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/tfenc-fuzz-%ld.json", (long)getpid());
    return path;
}

/* The text and pair each loaded tokenizer encodes. */
static const char text[] = "Hello wörld, 你好 <s> 123\t😀 e\xcc\x81";
static const char pair[] = "a pair";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(input_path(), "wb");
    if (!f)
        return 0;
    const int written = fwrite(data, 1, size, f) == size;
    fclose(f);
    tf_tokenizer *tok;
    const tf_status loaded = written ? tf_tokenizer_load(input_path(), NULL, &tok) : TF_ERR_IO;
    unlink(input_path()); /* the replay in meson test leaves nothing in /tmp */
    if (loaded == TF_OK) {
        use_tokenizer(tok, text, sizeof text - 1, pair, sizeof pair - 1);
        tf_tokenizer_destroy(tok);
    }
    return 0;
}
