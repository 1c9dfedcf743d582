/* siglip_files.c — SigLIP's tokenizer from spiece.model alone (a folder whose
 * tokenizer_config.json names SiglipTokenizer): transformers'
 * SiglipTokenizer (models/siglip/tokenization_siglip.py) over SentencePiece's
 * Unigram model, assembled as a tokenizer.json in memory and loaded as any
 * (json_tokenizer.c). What SiglipTokenizer does to a text, stage by stage:
 *   tokenize: "▁" (SPIECE_UNDERLINE) in the text becomes " ", then
 *     PreTrainedTokenizer.tokenize lowercases it (do_lower_case, true unless
 *     the folder says false) outside the added tokens, which it splits off;
 *   _tokenize: canonicalize_text removes string.punctuation's characters,
 *     turns each run of Python's \s into " " and strips the ends; then
 *     SentencePiece encodes "<unk>" + "▁" + text with add_dummy_prefix
 *     false and drops the pieces of "<unk>". SentencePiece takes that "▁" as
 *     a space: its normalizer (the model's precompiled_charsmap, then
 *     remove_extra_whitespaces: runs of spaces as one, none at the ends)
 *     leaves the text one "▁" before it where the text is not empty, and
 *     every space "▁";
 *   build_inputs_with_special_tokens: "</s>" after it (T5's "$A </s>").
 * As normalizers: Replace "▁" -> " ", Lowercase, Replace punctuation -> "",
 * Replace Python's \s+ -> " ", Strip, Precompiled, Replace " {2,}" -> " ",
 * Strip, Prepend "▁", Replace " " -> "▁"; no pre-tokenizer (SentencePiece's
 * one lattice over the whole text); the Unigram model of the pieces.
 * SiglipProcessor pads to model_max_length (64): tf_encode_options'
 * pad_to_max_length with max_length 0, which this tokenizer's
 * model_max_length (the folder's, else SiglipTokenizer's 64) sizes. */
#include <cjson/cJSON.h>
#include <string.h>

#include "alloc.h"
#include "base64.h"
#include "error.h"
#include "file.h"
#include "json_fields.h"
#include "spiece_model.h"
#include "tokenizer_files.h"

#define TF_SIGLIP_MAX_LENGTH 64 /* SiglipTokenizer's model_max_length */

/* The normalizers before SentencePiece's, Lowercase between the first two,
 * and after it, around the Precompiled one; the rest of the file but the
 * model and the tokens. */
static const char siglip_underline[] =
    "[{\"type\": \"Replace\", \"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"}]";
static const char siglip_canonical[] =
    "[{\"type\": \"Replace\", \"pattern\": {\"Regex\": \"[!-/:-@\\\\[-`{-~]\"}, \"content\": \"\"},"
    " {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"[\\\\t-\\\\r\\\\x{1c}-\\\\x{20}\\\\x{85}"
    "\\\\x{a0}\\\\x{1680}\\\\x{2000}-\\\\x{200a}\\\\x{2028}\\\\x{2029}\\\\x{202f}\\\\x{205f}"
    "\\\\x{3000}]+\"}, \"content\": \" \"},"
    " {\"type\": \"Strip\", \"strip_left\": true, \"strip_right\": true}]";
static const char siglip_after[] =
    "[{\"type\": \"Replace\", \"pattern\": {\"Regex\": \" {2,}\"}, \"content\": \" \"},"
    " {\"type\": \"Strip\", \"strip_left\": true, \"strip_right\": true},"
    " {\"type\": \"Prepend\", \"prepend\": \"\\u2581\"},"
    " {\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"\\u2581\"}]";
static const char siglip_rest[] =
    "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"pre_tokenizer\": null,"
    " \"decoder\": {\"type\": \"Metaspace\", \"replacement\": \"\\u2581\","
    "  \"prepend_scheme\": \"always\", \"split\": true},"
    " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": []},"
    " \"model\": {\"type\": \"Unigram\"}, \"added_tokens\": []}";

/* SiglipTokenizer's special tokens where the folder names none. */
static const char *const siglip_default_role[TF_ROLE_COUNT] = {
    [TF_ROLE_EOS] = "</s>",
    [TF_ROLE_UNK] = "<unk>",
    [TF_ROLE_PAD] = "</s>",
};

static const char *role(const tf__folder_config *fc, tf__special_role r)
{
    return fc->role[r].content ? fc->role[r].content : siglip_default_role[r];
}

/* ---- The model file ------------------------------------------------------------ */

static tf_status read_model(const char *path, tf__spiece_model *m)
{
    char *bytes = NULL;
    size_t len = 0;
    tf_status s = tf__file_read_all(path, TF_VOCAB_MAX_BYTES, &bytes, &len);
    if (s == TF_OK)
        s = tf__spiece_parse(m, (const unsigned char *)bytes, len, path);
    tf__free(bytes);
    return s;
}

/* What SiglipTokenizer's stages above take of the model: a Unigram model
 * whose normalizer removes extra whitespace and escapes it, before pieces. */
static tf_status check_model(const tf__spiece_model *m, const char *path)
{
    const char *field = m->model_type != TF_SPIECE_UNIGRAM ? "trainer_spec.model_type"
        : !m->remove_extra_whitespaces  ? "normalizer_spec.remove_extra_whitespaces"
        : !m->escape_whitespaces        ? "normalizer_spec.escape_whitespaces"
        : m->treat_whitespace_as_suffix ? "trainer_spec.treat_whitespace_as_suffix"
                                        : NULL;
    if (!field)
        return TF_OK;
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: %s: only a Unigram model (model_type 1) that removes extra whitespace, "
                    "escapes it and puts it before pieces is read as SiglipTokenizer's",
                    path, field);
}

/* ---- The tokenizer.json --------------------------------------------------------- */

/* bytes[0..n) as base64, NUL-terminated, allocated into *out. */
static int base64_text(const unsigned char *bytes, size_t n, char **out)
{
    const size_t len = tf__base64_length(n);
    if (!(*out = tf__malloc(len + 1)))
        return 0;
    tf__base64_encode(bytes, n, *out);
    (*out)[len] = '\0';
    return 1;
}

/* Appends the items of the JSON array text to list. */
static int append_parsed(cJSON *list, const char *text)
{
    cJSON *items = cJSON_Parse(text), *item;
    int ok = items != NULL;
    while (ok && (item = cJSON_DetachItemFromArray(items, 0)) != NULL)
        ok = cJSON_AddItemToArray(list, item);
    cJSON_Delete(items);
    return ok;
}

/* SiglipTokenizer's normalizers (see the top) into list. */
static int add_normalizers(cJSON *list, const tf__spiece_model *m, int lowercase)
{
    static const char lower[] = "[{\"type\": \"Lowercase\"}]";
    int ok = append_parsed(list, siglip_underline) && (!lowercase || append_parsed(list, lower)) &&
        append_parsed(list, siglip_canonical);
    if (ok && m->charsmap_len) {
        char *b64 = NULL;
        cJSON *pre = cJSON_CreateObject();
        ok = base64_text(m->charsmap, m->charsmap_len, &b64) &&
            cJSON_AddStringToObject(pre, "type", "Precompiled") &&
            cJSON_AddStringToObject(pre, "precompiled_charsmap", b64) &&
            cJSON_AddItemToArray(list, pre);
        if (!ok)
            cJSON_Delete(pre);
        tf__free(b64);
    }
    return ok && append_parsed(list, siglip_after);
}

/* The pieces as [piece, score], unk_id and byte_fallback into model. */
static int add_model(cJSON *model, const tf__spiece_model *m)
{
    cJSON *vocab = cJSON_AddArrayToObject(model, "vocab");
    int ok = vocab && cJSON_AddNumberToObject(model, "unk_id", m->unk_id) &&
        cJSON_AddBoolToObject(model, "byte_fallback", m->byte_fallback);
    for (int32_t k = 0; ok && k < m->n_pieces; k++) {
        cJSON *pair = cJSON_CreateArray();
        ok = cJSON_AddItemToArray(vocab, pair) &&
            cJSON_AddItemToArray(pair, cJSON_CreateString(tf__spiece_piece(m, k))) &&
            cJSON_AddItemToArray(pair, cJSON_CreateNumber(m->score[k]));
    }
    return ok;
}

/* An added token of content, id and flags. */
static int add_token(cJSON *list, const char *content, int32_t id, int special, int lstrip,
                     int rstrip)
{
    cJSON *t = cJSON_CreateObject();
    return cJSON_AddItemToArray(list, t) && cJSON_AddNumberToObject(t, "id", id) &&
        cJSON_AddStringToObject(t, "content", content) &&
        cJSON_AddBoolToObject(t, "single_word", 0) && cJSON_AddBoolToObject(t, "lstrip", lstrip) &&
        cJSON_AddBoolToObject(t, "rstrip", rstrip) && cJSON_AddBoolToObject(t, "normalized", 0) &&
        cJSON_AddBoolToObject(t, "special", special);
}

/* The folder's added_tokens_decoder entry of content, or NULL. */
static const tf__folder_token *decoder_entry(const tf__folder_config *fc, const char *content)
{
    for (size_t a = 0; a < fc->n_decoder; a++)
        if (strcmp(fc->added[a].content, content) == 0)
            return &fc->added[a];
    return NULL;
}

/* The piece id of token, or TF_ERR_FORMAT naming the role. */
static tf_status piece_id(const tf__spiece_model *m, const char *token, const char *role_name,
                          const char *path, int32_t *id)
{
    for (int32_t k = 0; k < m->n_pieces; k++)
        if (strcmp(tf__spiece_piece(m, k), token) == 0) {
            *id = k;
            return TF_OK;
        }
    return tf__fail(TF_ERR_FORMAT, "%s: the %s \"%s\" is not a piece of it", path, role_name,
                    token);
}

/* The added tokens: SentencePiece's user-defined pieces (matched whole, as
 * its normalizer matches them), then eos, unk and pad as SiglipTokenizer
 * adds them (AddedToken(lstrip=True, rstrip=True, normalized=False,
 * special=True), or as added_tokens_decoder says); and "$A </s>". */
static tf_status add_tokens(cJSON *root, const tf__spiece_model *m, const tf__folder_config *fc,
                            const char *path)
{
    static const tf__special_role roles[] = {TF_ROLE_EOS, TF_ROLE_UNK, TF_ROLE_PAD};
    static const char *const names[] = {"eos_token", "unk_token", "pad_token"};
    cJSON *added = cJSON_GetObjectItemCaseSensitive(root, "added_tokens");
    int ok = 1;
    for (int32_t k = 0; ok && k < m->n_pieces; k++)
        if (m->type[k] == TF_SPIECE_USER_DEFINED)
            ok = add_token(added, tf__spiece_piece(m, k), k, 0, 0, 0);
    int32_t ids[3] = {0};
    tf_status s = TF_OK;
    for (int r = 0; s == TF_OK && r < 3; r++)
        s = piece_id(m, role(fc, roles[r]), names[r], path, &ids[r]);
    for (int r = 0; s == TF_OK && ok && r < 3; r++) {
        const char *content = role(fc, roles[r]);
        const tf__folder_token *d = decoder_entry(fc, content);
        int seen = 0;
        for (int q = 0; q < r; q++)
            seen |= strcmp(role(fc, roles[q]), content) == 0;
        ok = seen || add_token(added, content, ids[r], 1, d ? d->lstrip : 1, d ? d->rstrip : 1);
    }
    if (s)
        return s;
    const char *eos = role(fc, TF_ROLE_EOS);
    cJSON *post = cJSON_AddObjectToObject(root, "post_processor");
    cJSON *single = post ? cJSON_AddArrayToObject(post, "single") : NULL;
    cJSON *pair = post ? cJSON_AddArrayToObject(post, "pair") : NULL;
    cJSON *specials = post ? cJSON_AddObjectToObject(post, "special_tokens") : NULL;
    cJSON *special = specials ? cJSON_AddObjectToObject(specials, eos) : NULL;
    cJSON *ids_list = special ? cJSON_AddArrayToObject(special, "ids") : NULL;
    cJSON *tokens = special ? cJSON_AddArrayToObject(special, "tokens") : NULL;
    ok = ok && single && pair && ids_list && tokens &&
        cJSON_AddStringToObject(post, "type", "TemplateProcessing") &&
        cJSON_AddStringToObject(special, "id", eos) &&
        cJSON_AddItemToArray(ids_list, cJSON_CreateNumber(ids[0])) &&
        cJSON_AddItemToArray(tokens, cJSON_CreateString(eos));
    static const char *const seq[] = {"A", "B"};
    for (int k = 0; ok && k < 4; k++) { /* single: $A </s>; pair: $A </s> $B </s> */
        cJSON *item = cJSON_CreateObject();
        cJSON *body = cJSON_AddObjectToObject(item, k % 2 ? "SpecialToken" : "Sequence");
        ok = body && cJSON_AddStringToObject(body, "id", k % 2 ? eos : seq[k / 2]) &&
            cJSON_AddNumberToObject(body, "type_id", 0) &&
            (k >= 2 || cJSON_AddItemToArray(single, cJSON_Duplicate(item, 1))) &&
            cJSON_AddItemToArray(pair, item);
        if (!ok)
            cJSON_Delete(item);
    }
    return ok ? TF_OK : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokenizer", path);
}

/* SiglipTokenizer's tokenizer.json of the model m into *root; lowercase:
 * do_lower_case (the options' lowercase: the folder's do_lower_case, else
 * true as SiglipTokenizer's default). */
static tf_status assemble(const tf__spiece_model *m, const tf__folder_config *fc, int lowercase,
                          const char *path, cJSON **root)
{
    *root = cJSON_Parse(siglip_rest);
    cJSON *normalizer = cJSON_GetObjectItemCaseSensitive(*root, "normalizer");
    cJSON *model = cJSON_GetObjectItemCaseSensitive(*root, "model");
    const int ok = model &&
        add_normalizers(cJSON_GetObjectItemCaseSensitive(normalizer, "normalizers"), m,
                        lowercase) &&
        add_model(model, m);
    return ok ? add_tokens(*root, m, fc, path)
              : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the tokenizer", path);
}

tf_status tf__siglip_files_load(tf_tokenizer *tok, const char *path, const tf_tokenizer_options *o,
                                const tf__folder_config *fc)
{
    tf__spiece_model m = {0};
    cJSON *root = NULL;
    tf_status s = read_model(path, &m);
    if (s == TF_OK)
        s = check_model(&m, path);
    if (s == TF_OK)
        s = assemble(&m, fc, o->lowercase, path, &root);
    tf__spiece_clear(&m);
    if (s == TF_OK)
        s = tf__tokenizer_json_load_root(tok, root, path, o);
    if (s == TF_OK && !o->max_length)
        tok->model_max_length = TF_SIGLIP_MAX_LENGTH; /* the folder's replaces it */
    cJSON_Delete(root);
    return s;
}
