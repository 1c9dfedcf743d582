/* clip_files.c — CLIP's tokenizer from vocab.json and merges.txt alone (what
 * CLIPTokenizer reads; sentence-transformers' clip-ViT-B-32 folder has no
 * tokenizer.json): the tokenizer.json transformers' CLIPConverter
 * (convert_slow_tokenizer.py) writes for CLIPTokenizerFast, assembled in
 * memory and loaded as any tokenizer.json (json_tokenizer.c):
 *   normalizer     Sequence[NFC, Replace(Regex \s+, " "), Lowercase]
 *   pre_tokenizer  Sequence[Split(Regex CLIP's pattern, Removed, invert),
 *                           ByteLevel(add_prefix_space false)]
 *   model          BPE(vocab.json, merges.txt, end_of_word_suffix "</w>",
 *                      continuing_subword_prefix "", fuse_unk false, unk_token)
 *   decoder        ByteLevel
 *   post_processor RobertaProcessing(sep eos, cls bos, trim_offsets false,
 *                                    add_prefix_space false)
 * with bos, eos and unk the folder's (tokenizer_config.json's) or
 * CLIPTokenizer's defaults. */
#include <cjson/cJSON.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "json.h"
#include "json_fields.h"
#include "tokenizer_files.h"

/* CLIPTokenizer.__init__ reads merges.txt's lines 1 .. 49152 - 256 - 2 (line 0
 * is "#version: 0.2"): the merges of CLIP's 49408 tokens. */
#define TF_CLIP_MAX_MERGES (49152 - 256 - 2)
#define TF_CLIP_JSON_DEPTH 8 /* vocab.json: one object of token -> id */
#define TF_CLIP_MAX_LENGTH \
    77 /* CLIP's text positions: model_max_length where the folder
                                 says none */

/* CLIPConverter's stages; the model, added tokens and post-processor are
 * added from the files. */
static const char clip_stages[] =
    "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null,"
    " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": ["
    "  {\"type\": \"NFC\"},"
    "  {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"\\\\s+\"}, \"content\": \" \"},"
    "  {\"type\": \"Lowercase\"}]},"
    " \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
    "  {\"type\": \"Split\", \"pattern\": {\"Regex\":"
    "   \"'s|'t|'re|'ve|'m|'ll|'d|[\\\\p{L}]+|[\\\\p{N}]|[^\\\\s\\\\p{L}\\\\p{N}]+\"},"
    "   \"behavior\": \"Removed\", \"invert\": true},"
    "  {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true,"
    "   \"use_regex\": true}]},"
    " \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true,"
    "  \"use_regex\": true},"
    " \"model\": {\"type\": \"BPE\", \"dropout\": null, \"continuing_subword_prefix\": \"\","
    "  \"end_of_word_suffix\": \"</w>\", \"fuse_unk\": false, \"byte_fallback\": false}}";

/* CLIPTokenizer's special tokens where the folder names none. */
static const char *const clip_default_role[TF_ROLE_COUNT] = {
    [TF_ROLE_BOS] = "<|startoftext|>",
    [TF_ROLE_EOS] = "<|endoftext|>",
    [TF_ROLE_UNK] = "<|endoftext|>",
    [TF_ROLE_PAD] = "<|endoftext|>",
};

static const char *role(const tf__folder_config *fc, tf__special_role r)
{
    return fc->role[r].content ? fc->role[r].content : clip_default_role[r];
}

/* Python's str.split() separators among ASCII (merges.txt's tokens are
 * byte-level characters, never whitespace). */
static int is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Line `line` (from 0) of merges.txt, text[0..len): two tokens apart, as
 * "a b" appended to merges. */
static tf_status add_merge_line(const char *path, size_t line, const char *text, size_t len,
                                cJSON *merges)
{
    size_t field[4][2], n = 0; /* the fields' [begin, end) */
    for (size_t i = 0; i < len;) {
        while (i < len && is_space((unsigned char)text[i]))
            i++;
        if (i == len)
            break;
        const size_t begin = i;
        while (i < len && !is_space((unsigned char)text[i]))
            i++;
        if (n < 4)
            field[n][0] = begin, field[n][1] = i;
        n++;
    }
    if (n != 2)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: line %zu: expected two tokens apart (\"a b\"), got %zu "
                        "fields",
                        path, line + 1, n);
    char *joined = NULL; /* "a b" */
    tf_status s = tf__format_alloc(&joined, "%.*s %.*s", (int)(field[0][1] - field[0][0]),
                                   text + field[0][0], (int)(field[1][1] - field[1][0]),
                                   text + field[1][0]);
    cJSON *item = s ? NULL : cJSON_CreateString(joined);
    tf__free(joined);
    if (s == TF_OK && !cJSON_AddItemToArray(merges, item)) {
        cJSON_Delete(item);
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the merges", path);
    }
    return s;
}

/* merges.txt as CLIPTokenizer reads it: the text stripped of whitespace at
 * both ends, split at "\n", lines 1 .. TF_CLIP_MAX_MERGES, each two tokens
 * apart; into merges, a JSON array of "a b". */
static tf_status read_merges(const char *path, cJSON *merges)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_VOCAB_MAX_BYTES, &text, &len);
    if (s)
        return s;
    size_t begin = 0, end = len, stripped_lines = 0; /* the file's lines before begin */
    while (begin < end && is_space((unsigned char)text[begin]))
        stripped_lines += text[begin++] == '\n';
    while (end > begin && is_space((unsigned char)text[end - 1]))
        end--;
    size_t line = 0;
    for (size_t at = begin; s == TF_OK && at < end && line <= TF_CLIP_MAX_MERGES; line++) {
        const char *nl = memchr(text + at, '\n', end - at);
        const size_t stop = nl ? (size_t)(nl - text) : end;
        if (line > 0) /* line 0: "#version: 0.2" */
            s = add_merge_line(path, stripped_lines + line, text + at, stop - at, merges);
        at = stop + 1;
    }
    tf__free(text);
    return s;
}

/* vocab.json: its parsed object into *vocab (cJSON_Delete it). */
static tf_status read_vocab(const char *path, cJSON **vocab)
{
    char *text = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_VOCAB_MAX_BYTES, &text, &len);
    if (s == TF_OK)
        s = tf__json_parse(text, len, TF_CLIP_JSON_DEPTH, path, vocab);
    tf__free(text);
    if (s == TF_OK && !cJSON_IsObject(*vocab))
        s = tf__fail(TF_ERR_FORMAT, "%s: expected a JSON object of token -> id", path);
    return s;
}

/* The id vocab.json gives token, or TF_ERR_FORMAT naming the role. */
static tf_status token_id(const cJSON *vocab, const char *token, const char *role_name,
                          const char *path, int32_t *id)
{
    uint64_t u = 0;
    if (!tf__json_uint(cJSON_GetObjectItemCaseSensitive(vocab, token), INT32_MAX - 1, &u))
        return tf__fail(TF_ERR_FORMAT, "%s: the %s \"%s\" is not a token of it", path, role_name,
                        token);
    *id = (int32_t)u;
    return TF_OK;
}

/* An added token of the tokenizer.json: CLIPTokenizer's specials are
 * AddedToken(lstrip=False, rstrip=False), normalized. */
static int add_special(cJSON *list, const char *content, int32_t id)
{
    cJSON *t = cJSON_CreateObject();
    return cJSON_AddItemToArray(list, t) && cJSON_AddNumberToObject(t, "id", id) &&
        cJSON_AddStringToObject(t, "content", content) &&
        cJSON_AddBoolToObject(t, "single_word", 0) && cJSON_AddBoolToObject(t, "lstrip", 0) &&
        cJSON_AddBoolToObject(t, "rstrip", 0) && cJSON_AddBoolToObject(t, "normalized", 1) &&
        cJSON_AddBoolToObject(t, "special", 1);
}

/* ["<token>", id] of RobertaProcessing's sep and cls. */
static int add_pair(cJSON *o, const char *key, const char *token, int32_t id)
{
    cJSON *pair = cJSON_AddArrayToObject(o, key);
    return pair && cJSON_AddItemToArray(pair, cJSON_CreateString(token)) &&
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(id));
}

/* The specials' ids, the added tokens (bos, eos, and unk where it is
 * another) and the post-processor into root. */
static tf_status add_specials(cJSON *root, const cJSON *vocab, const tf__folder_config *fc,
                              const char *path)
{
    const char *bos = role(fc, TF_ROLE_BOS), *eos = role(fc, TF_ROLE_EOS);
    const char *unk = role(fc, TF_ROLE_UNK);
    int32_t bos_id = 0, eos_id = 0, unk_id = 0;
    tf_status s = token_id(vocab, bos, "bos_token", path, &bos_id);
    if (s == TF_OK)
        s = token_id(vocab, eos, "eos_token", path, &eos_id);
    if (s == TF_OK)
        s = token_id(vocab, unk, "unk_token", path, &unk_id);
    if (s)
        return s;
    cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    cJSON *added = cJSON_AddArrayToObject(root, "added_tokens");
    cJSON *post = cJSON_AddObjectToObject(root, "post_processor");
    int ok = added && post && cJSON_AddStringToObject(model, "unk_token", unk) &&
        add_special(added, bos, bos_id) &&
        (strcmp(eos, bos) == 0 || add_special(added, eos, eos_id)) &&
        (strcmp(unk, bos) == 0 || strcmp(unk, eos) == 0 || add_special(added, unk, unk_id));
    ok = ok && cJSON_AddStringToObject(post, "type", "RobertaProcessing") &&
        add_pair(post, "sep", eos, eos_id) && add_pair(post, "cls", bos, bos_id) &&
        cJSON_AddBoolToObject(post, "trim_offsets", 0) &&
        cJSON_AddBoolToObject(post, "add_prefix_space", 0);
    return ok ? TF_OK : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokenizer", path);
}

/* CLIPConverter's tokenizer.json of vocab.json at vocab_path and merges.txt
 * at merges_path into *root. */
static tf_status assemble(const char *vocab_path, const char *merges_path,
                          const tf__folder_config *fc, cJSON **root)
{
    cJSON *vocab = NULL;
    *root = cJSON_Parse(clip_stages);
    cJSON *model = cJSON_GetObjectItemCaseSensitive(*root, "model");
    cJSON *merges = model ? cJSON_AddArrayToObject(model, "merges") : NULL;
    tf_status s = merges
        ? TF_OK
        : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokenizer", vocab_path);
    if (s == TF_OK)
        s = read_merges(merges_path, merges);
    if (s == TF_OK)
        s = read_vocab(vocab_path, &vocab);
    if (s == TF_OK)
        s = add_specials(*root, vocab, fc, vocab_path);
    if (s == TF_OK && !cJSON_AddItemToObject(model, "vocab", vocab))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokenizer", vocab_path);
    else if (s == TF_OK)
        vocab = NULL; /* root's now */
    cJSON_Delete(vocab);
    return s;
}

tf_status tf__clip_files_load(tf_tokenizer *tok, const char *vocab_path, const char *merges_path,
                              const tf_tokenizer_options *o, const tf__folder_config *fc)
{
    char *what = NULL; /* merges.txt's line k + 2 is model.merges[k] in messages */
    tf_status s = tf__format_alloc(&what, "%s with merges.txt", vocab_path);
    cJSON *root = NULL;
    if (s == TF_OK)
        s = assemble(vocab_path, merges_path, fc, &root);
    if (s == TF_OK)
        s = tf__tokenizer_json_load_root(tok, root, what, o);
    if (s == TF_OK && !o->max_length)
        tok->model_max_length = TF_CLIP_MAX_LENGTH; /* the folder's replaces it */
    cJSON_Delete(root);
    tf__free(what);
    return s;
}
