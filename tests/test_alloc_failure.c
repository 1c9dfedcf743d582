/* test_alloc_failure.c — with the library built with its allocation hook,
 * every allocation of create, load (Hugging Face, PyTorch, our own files),
 * inspect, save, forward (plain, with a workspace, traced), the
 * tokenizer (vocab.txt and tokenizer.json files of every kind of stage, a
 * folder whose tokenizer_config.json adds tokens, CLIP's and SigLIP's
 * folders without a tokenizer.json) and
 * model folders (tf_pipeline_load and a call; fill-mask; images) is made to fail in turn: each run returns TF_ERR_OUT_OF_MEMORY
 * or succeeds, leaks nothing, and an existing handle keeps working. Also:
 * loading a hostile file of at most 4 KiB never holds more than 2 MiB, and
 * encoding a 1 MB text holds at most TEXT_BYTES_HELD bytes a byte of it. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc_hook.h"
#include "common/suite.h"
#include "common/util.h"
#include "tfenc.h"

void *tf__malloc(size_t n); /* the hooked allocator, for cJSON */
void tf__free(void *p);

static const char *data_dir, *golden_dir;
static char tmp_dir[64];

typedef tf_status (*scenario)(void *ctx);

/* Fails allocation 1, 2, 3, ... of fn until a run needs no more; returns
 * how many allocations were made to fail. */
static long sweep(const char *name, scenario fn, void *ctx)
{
    for (long n = 1;; n++) {
        const long before = tf__alloc_hook_live();
        tf__alloc_hook_fail_at(n);
        const tf_status s = fn(ctx);
        const int failed = tf__alloc_hook_failed();
        tf__alloc_hook_fail_at(0);
        ck_assert_msg(tf__alloc_hook_live() == before,
                      "%s, allocation %ld failing: %ld blocks leaked", name, n,
                      tf__alloc_hook_live() - before);
        if (!failed) {
            ck_assert_msg(s == TF_OK, "%s: %s (%s)", name, tf_status_name(s), tf_last_error());
            printf("%-28s %4ld allocation failures, each TF_ERR_OUT_OF_MEMORY, nothing leaked\n",
                   name, n - 1);
            return n - 1;
        }
        ck_assert_msg(s == TF_ERR_OUT_OF_MEMORY, "%s, allocation %ld failing: %s (%s)", name, n,
                      tf_status_name(s), tf_last_error());
    }
}

/* ---- Scenarios ---------------------------------------------------------------- */

static tf_status create_bert_like(void *ctx)
{
    (void)ctx;
    tf_config c;
    tf_config_init(&c);
    c.d_model = 16, c.n_heads = 2, c.d_ff = 24, c.n_layers = 2, c.vocab_size = 50;
    c.position = TF_POSITION_LEARNED, c.max_positions = 32, c.n_token_types = 2;
    c.embedding_norm = 1, c.final_norm = 1, c.pooler = 1;
    tf_encoder *enc;
    const tf_status s = tf_encoder_create(&c, &enc);
    if (s == TF_OK)
        tf_encoder_destroy(enc);
    return s;
}

static tf_status load(void *path)
{
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = 4;
    tf_encoder *enc;
    const tf_status s = tf_encoder_load(path, &o, &enc);
    if (s == TF_OK)
        tf_encoder_destroy(enc);
    return s;
}

static tf_status inspect(void *path)
{
    tf_model_info *info;
    const tf_status s = tf_model_inspect(path, NULL, &info);
    if (s == TF_OK)
        tf_model_info_destroy(info);
    return s;
}

typedef struct forward_case {
    tf_encoder *enc;
    int32_t ids[2 * 6], lengths[2];
    float out[2 * 6 * 16], hidden[3 * 2 * 6 * 16], attn[2 * 2 * 2 * 6 * 6], pooled[2 * 16];
    int with_workspace, with_trace;
} forward_case;

static void ignore_event(const tf_trace_event *e, void *user)
{
    (void)e, (void)user;
}

static tf_status forward(void *ctx)
{
    forward_case *f = ctx;
    tf_workspace *ws = NULL;
    tf_status s = f->with_workspace ? tf_workspace_create(&ws) : TF_OK;
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 2, a.seq_len = 6, a.input_ids = f->ids, a.lengths = f->lengths, a.output = f->out;
    a.hidden_states = f->hidden, a.attentions = f->attn, a.pooled_output = f->pooled;
    a.workspace = ws, a.trace = f->with_trace ? ignore_event : NULL;
    if (s == TF_OK)
        s = tf_encoder_forward(f->enc, &a);
    tf_workspace_destroy(ws);
    return s;
}

static tf_status save(void *ctx)
{
    char path[128];
    snprintf(path, sizeof path, "%s/saved.safetensors", tmp_dir);
    return tf_encoder_save(ctx, path);
}

static tf_status tokenize(void *vocab)
{
    tf_tokenizer *tok;
    tf_status s = tf_tokenizer_load(vocab, NULL, &tok);
    if (s)
        return s;
    const char *texts[2] = {"Crème brûlée, jalapeño", "中文分词 and [MASK] more"};
    const char *pairs[2] = {"a second sentence", "b"};
    tf_encoding *e;
    s = tf_tokenizer_encode_batch(tok, 2, texts, NULL, pairs, NULL, &e);
    if (s == TF_OK)
        tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    return s;
}

/* A model folder loaded, then one call on two inputs (pairs for a head). */
static tf_status pipeline_run(void *dir)
{
    tf_pipeline *p;
    tf_status s = tf_pipeline_load(dir, NULL, &p);
    if (s)
        return s;
    const char *texts[2] = {"the cat sat on the mat.", "hello world"};
    float out[2 * 16];
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 2, a.texts = texts, a.out = out, a.batch_size = 1;
    a.out_len = sizeof out / sizeof *out;
    if (tf_pipeline_kind_of(p) == TF_PIPELINE_EMBEDDING) {
        a.prompt_name = "query";
        s = tf_pipeline_embed(p, &a);
    } else {
        a.pairs = texts;
        s = tf_pipeline_score(p, &a);
    }
    tf_pipeline_destroy(p);
    return s;
}

/* A folder loaded, nothing run. ctx: the folder. */
static tf_status pipeline_load_only(void *dir)
{
    tf_pipeline *p;
    const tf_status s = tf_pipeline_load(dir, NULL, &p);
    tf_pipeline_destroy(p);
    return s;
}

/* An image folder loaded (the tower, its processor), then two images
 * embedded: a PNG file's bytes (decoded, resized, cropped) and 4 x 5 RGB
 * pixels. ctx: the folder. */
static tf_status image_pipeline_run(void *dir)
{
    static uint8_t png[4096];
    static size_t png_len;
    if (!png_len) { /* the file, read once, by stdio (not the hooked allocator) */
        char path[512];
        snprintf(path, sizeof path, "%s/images/files/rgb_17x11.png", data_dir);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        png_len = fread(png, 1, sizeof png, f);
        fclose(f);
    }
    tf_pipeline *p;
    tf_status s = tf_pipeline_load(dir, NULL, &p);
    if (s)
        return s;
    static const uint8_t pixels[4 * 5 * 3];
    const uint8_t *data[] = {png};
    float out[24];
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 1, a.data = data, a.sizes = &png_len, a.out = out, a.out_len = 24;
    s = tf_pipeline_embed_images(p, &a);
    a.data = NULL, a.sizes = NULL, a.pixels = pixels, a.height = 4, a.width = 5;
    if (s == TF_OK)
        s = tf_pipeline_embed_images(p, &a);
    tf_pipeline_destroy(p);
    return s;
}

/* A whole CLIP or SigLIP folder (both towers, its tokenizer) loaded, two
 * texts embedded by its text tower, then one image's zero-shot probabilities
 * over them. ctx: the folder. */
static tf_status zero_shot_run(void *dir)
{
    tf_pipeline *p;
    tf_status s = tf_pipeline_load(dir, NULL, &p);
    if (s)
        return s;
    const char *texts[] = {"a photo of a cat", "a dog"};
    float out[2 * 32];
    tf_pipeline_args t;
    tf_pipeline_args_init(&t);
    t.n = 2, t.texts = texts, t.out = out, t.out_len = 2 * 32;
    s = tf_pipeline_embed(p, &t);
    static const uint8_t pixels[4 * 5 * 3];
    tf_image_args a;
    tf_image_args_init(&a);
    a.n = 1, a.pixels = pixels, a.height = 4, a.width = 5, a.out = out, a.out_len = 2;
    if (s == TF_OK)
        s = tf_pipeline_zero_shot(p, &a, texts, 2);
    tf_pipeline_destroy(p);
    return s;
}

/* A *ForMaskedLM folder loaded (its masked-LM head), then fill-mask on a
 * text of two masks (predictions, their decoded tokens and sequences). */
static tf_status fill_mask_run(void *dir)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.kind = TF_PIPELINE_FILL_MASK; /* a bare *ForMaskedLM folder with its head */
    tf_pipeline *p;
    tf_status s = tf_pipeline_load(dir, &o, &p);
    if (s)
        return s;
    tf_fill_mask *m;
    s = tf_pipeline_fill_mask(p, "the [MASK] sat on the [MASK].", 3, &m);
    if (s == TF_OK)
        tf_fill_mask_destroy(m);
    tf_pipeline_destroy(p);
    return s;
}

/* ---- Tests ---------------------------------------------------------------------- */

START_TEST(test_create)
{
    /* the handle, the tensor table, its slots, the layer views, the weight block */
    ck_assert_int_eq(sweep("create", create_bert_like, NULL), 5);
}
END_TEST

START_TEST(test_load_and_inspect)
{
    char bert[512], pytorch[512], ours[512];
    snprintf(bert, sizeof bert, "%s/bert_tiny", data_dir);
    snprintf(pytorch, sizeof pytorch, "%s/pytorch_encoder_f16_metadata/model.safetensors",
             golden_dir);
    snprintf(ours, sizeof ours, "%s/ours.safetensors", tmp_dir);
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_load(pytorch, NULL, &enc), TF_OK);
    ck_assert_int_eq(tf_encoder_save(enc, ours), TF_OK);
    ck_assert_int_gt(sweep("load Hugging Face BERT", load, bert), 10);
    ck_assert_int_gt(sweep("load PyTorch F16", load, pytorch), 10);
    ck_assert_int_gt(sweep("load libtfenc file", load, ours), 10);
    ck_assert_int_gt(sweep("inspect", inspect, bert), 10);
    ck_assert_int_gt(sweep("save", save, enc), 3);
    tf_encoder_destroy(enc);
}
END_TEST

/* Forward on one existing handle: every failure leaves it working, and the
 * run that finally succeeds gives bitwise the output of a clean run. */
START_TEST(test_forward_keeps_the_handle_usable)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = 16, c.n_heads = 2, c.d_ff = 24, c.n_layers = 2, c.vocab_size = 30;
    c.pooler = 1;
    static forward_case f;
    ck_assert_int_eq(tf_encoder_create(&c, &f.enc), TF_OK);
    for (int i = 0; i < 12; i++)
        f.ids[i] = (i * 7) % 30;
    f.lengths[0] = 6, f.lengths[1] = 3;
    ck_assert_int_eq(forward(&f), TF_OK);
    static float clean[2 * 6 * 16];
    memcpy(clean, f.out, sizeof clean);
    const char *names[4] = {"forward", "forward with workspace", "forward traced",
                            "forward traced, workspace"};
    for (int v = 0; v < 4; v++) {
        f.with_workspace = v & 1, f.with_trace = v >> 1;
        const long failures = sweep(names[v], forward, &f);
        if (v == 0) /* the handle's own scratch, grown by the clean run */
            ck_assert_int_eq(failures, 0);
        else
            ck_assert_int_gt(failures, 0);
        ck_assert_mem_eq(f.out, clean, sizeof clean);
    }

    /* A fresh handle whose own scratch cannot be allocated: the call fails,
     * and the next one works. */
    tf_encoder_destroy(f.enc);
    ck_assert_int_eq(tf_encoder_create(&c, &f.enc), TF_OK);
    f.with_workspace = f.with_trace = 0;
    memset(f.out, 0, sizeof f.out);
    tf__alloc_hook_fail_at(1);
    ck_assert_int_eq(forward(&f), TF_ERR_OUT_OF_MEMORY);
    ck_assert_int_eq(tf__alloc_hook_failed(), 1);
    tf__alloc_hook_fail_at(0);
    ck_assert_int_eq(forward(&f), TF_OK);
    ck_assert_mem_eq(f.out, clean, sizeof clean);
    tf_encoder_destroy(f.enc);
}
END_TEST

/* With a reserved workspace the library allocates nothing in forward, with
 * OpenBLAS on as many threads as it likes (it may allocate for itself). */
START_TEST(test_forward_with_workspace_allocates_nothing)
{
    tf_config c;
    tf_config_init(&c);
    c.d_model = 16, c.n_heads = 2, c.d_ff = 24, c.n_layers = 2, c.vocab_size = 30, c.pooler = 1;
    static forward_case f;
    ck_assert_int_eq(tf_encoder_create(&c, &f.enc), TF_OK);
    f.lengths[0] = 6, f.lengths[1] = 4;
    tf_workspace *ws;
    ck_assert_int_eq(tf_workspace_create(&ws), TF_OK);
    ck_assert_int_eq(tf_workspace_reserve(ws, f.enc, 2, 6), TF_OK);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 2, a.seq_len = 6, a.input_ids = f.ids, a.lengths = f.lengths, a.output = f.out;
    a.hidden_states = f.hidden, a.attentions = f.attn, a.pooled_output = f.pooled;
    a.workspace = ws;
    const long before = tf__alloc_hook_count();
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(tf_encoder_forward(f.enc, &a), TF_OK);
    ck_assert_int_eq(tf__alloc_hook_count() - before, 0);
    tf_workspace_destroy(ws);
    tf_encoder_destroy(f.enc);
}
END_TEST

START_TEST(test_pipelines)
{
    /* (RoBERTa's folders are left out: each of the thousands of allocations
       of their 3745-token tokenizer.json would reload it) */
    const char *folders[] = {"pipelines/st_dense", "pipelines/st_mean_norm",
                             "pipelines/cross_encoder", "pipelines/classifier",
                             "families/distilbert_classifier"};
    for (int i = 0; i < 5; i++) {
        char dir[512], name[64];
        snprintf(dir, sizeof dir, "%s/%s", data_dir, folders[i]);
        snprintf(name, sizeof name, "pipeline %s", folders[i]);
        ck_assert_int_gt(sweep(name, pipeline_run, dir), 20);
    }
}
END_TEST

START_TEST(test_image_pipelines)
{
    /* sentence-transformers' CLIP: modules.json, the module's folder, the
       processor, the tower; ViT's classifier: its labels */
    const char *folders[] = {"image_pipeline/st_clip", "image_pipeline/vit_classifier"};
    for (int i = 0; i < 2; i++) {
        char dir[512], name[64];
        snprintf(dir, sizeof dir, "%s/%s", data_dir, folders[i]);
        snprintf(name, sizeof name, "pipeline %s", folders[i]);
        ck_assert_int_gt(sweep(name, i ? pipeline_load_only : image_pipeline_run, dir), 20);
    }
}
END_TEST

START_TEST(test_zero_shot)
{
    const char *folders[] = {"clip_text/st_clip", "clip_text/siglip"};
    for (int i = 0; i < 2; i++) {
        char dir[512], name[64];
        snprintf(dir, sizeof dir, "%s/%s", data_dir, folders[i]);
        snprintf(name, sizeof name, "pipeline %s", folders[i]);
        ck_assert_int_gt(sweep(name, zero_shot_run, dir), 20);
    }
}
END_TEST

START_TEST(test_fill_mask)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/mlm/bert_base_uncased", data_dir);
    ck_assert_int_gt(sweep("fill-mask mlm/bert_base_uncased", fill_mask_run, dir), 20);
}
END_TEST

/* Small tokenizer.json files with every kind of stage: a byte-level BPE
 * (NFC, a Split regex and ByteLevel, added tokens, a template), a character
 * BPE (a Sequence of normalizers with a regex Replace, normalized added
 * tokens, Punctuation and Digits, byte_fallback, truncation and padding)
 * and a WordPiece (BertNormalizer, BertPreTokenizer, BertProcessing). */
static const char *const tokenizer_jsons[] = {
    "{\"added_tokens\": [{\"id\": 8, \"content\": \"<|end|>\", \"special\": true}],"
    " \"normalizer\": {\"type\": \"NFC\"},"
    " \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
    "  {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\p{L}+| ?\\\\p{N}|\\\\s+\"},"
    "   \"behavior\": \"Isolated\", \"invert\": false},"
    "  {\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": false}]},"
    " \"post_processor\": {\"type\": \"TemplateProcessing\","
    "  \"single\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
    "              {\"SpecialToken\": {\"id\": \"<|end|>\", \"type_id\": 0}}],"
    "  \"pair\": [{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}},"
    "            {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}],"
    "  \"special_tokens\": {\"<|end|>\": {\"id\": \"<|end|>\", \"ids\": [8],"
    "   \"tokens\": [\"<|end|>\"]}}},"
    " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2, \"\\u0120\": 3,"
    "  \"\\u0120a\": 4, \"1\": 5, \"c\": 6, \"abc\": 7}, \"merges\": [\"a b\", [\"\\u0120\", \"a\"],"
    "  [\"ab\", \"c\"]]}}",
    "{\"added_tokens\": [{\"id\": 0, \"content\": \"<unk>\", \"special\": true},"
    "  {\"id\": 9, \"content\": \"MASK\", \"special\": true, \"normalized\": true, \"lstrip\": true}],"
    " \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"NFKD\"},"
    "  {\"type\": \"StripAccents\"}, {\"type\": \"Lowercase\"},"
    "  {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"[0-9]+\"}, \"content\": \"#\"},"
    "  {\"type\": \"Prepend\", \"prepend\": \"_\"}, {\"type\": \"Strip\"}]},"
    " \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": ["
    "  {\"type\": \"WhitespaceSplit\"}, {\"type\": \"Punctuation\"}, {\"type\": \"Digits\"},"
    "  {\"type\": \"Whitespace\"}]},"
    " \"truncation\": {\"max_length\": 6, \"strategy\": \"LongestFirst\"},"
    " \"padding\": {\"strategy\": {\"Fixed\": 8}, \"pad_id\": 0},"
    " \"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"byte_fallback\": true,"
    "  \"continuing_subword_prefix\": \"##\", \"vocab\": {\"<unk>\": 0, \"a\": 1, \"##b\": 2,"
    "  \"ab\": 3, \"<0x61>\": 4, \"_\": 5, \"#\": 6, \"e\": 7, \"##e\": 8, \"MASK\": 9},"
    "  \"merges\": [\"a ##b\"]}}",
    "{\"added_tokens\": [{\"id\": 0, \"content\": \"[UNK]\", \"special\": true}],"
    " \"normalizer\": {\"type\": \"BertNormalizer\", \"lowercase\": true},"
    " \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},"
    " \"post_processor\": {\"type\": \"BertProcessing\", \"cls\": [\"[CLS]\", 1],"
    "  \"sep\": [\"[SEP]\", 2]},"
    " \"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", \"vocab\": {\"[UNK]\": 0,"
    "  \"[CLS]\": 1, \"[SEP]\": 2, \"a\": 3, \"##b\": 4, \"c\": 5}}}",
};

static tf_status tokenize_json(void *path)
{
    tf_tokenizer *tok;
    tf_status s = tf_tokenizer_load(path, NULL, &tok);
    if (s)
        return s;
    const char *texts[2] = {"ab abc 12 \xc3\xa9"
                            "e\xcc\x81 MASK<|end|>x",
                            "AB, c1 [UNK] \xe4\xb8\xad"};
    const char *pairs[2] = {"a b", "Caf\xc3\xa9 MASK 2"};
    tf_encoding *e;
    s = tf_tokenizer_encode_batch(tok, 2, texts, NULL, pairs, NULL, &e);
    if (s == TF_OK)
        tf_encoding_destroy(e);
    tf_tokenizer_destroy(tok);
    return s;
}

START_TEST(test_tokenizer_json)
{
    for (int i = 0; i < 3; i++) {
        char path[128], name[64];
        snprintf(path, sizeof path, "%s/tokenizer%d.json", tmp_dir, i);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fputs(tokenizer_jsons[i], f);
        fclose(f);
        snprintf(name, sizeof name, "tokenizer.json %d", i);
        ck_assert_int_gt(sweep(name, tokenize_json, path), 50);
    }
}
END_TEST

/* A model folder: the small WordPiece tokenizer.json, and a
 * tokenizer_config.json whose added_tokens_decoder and special tokens add
 * tokens to it (one normalised, one new past the vocabulary). */
START_TEST(test_tokenizer_folder)
{
    static const char config[] =
        "{\"model_max_length\": 16, \"pad_token\": \"<pad>\", \"mask_token\": \"[MASK]\","
        " \"additional_special_tokens\": [\"<e>\", {\"content\": \"<f>\", \"lstrip\": true}],"
        " \"added_tokens_decoder\": {\"7\": {\"content\": \"Ab C\", \"normalized\": true,"
        " \"special\": false}, \"1\": {\"content\": \"[CLS]\", \"special\": true}}}";
    char dir[160], path[200];
    snprintf(dir, sizeof dir, "%s/folder", tmp_dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    const char *const files[2][2] = {{"tokenizer.json", tokenizer_jsons[2]},
                                     {"tokenizer_config.json", config}};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k][0]);
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        fputs(files[k][1], f);
        fclose(f);
    }
    ck_assert_int_gt(sweep("tokenizer folder", tokenize_json, dir), 50);
}
END_TEST

/* Folders without a tokenizer.json: CLIP's vocab.json and merges.txt,
 * SigLIP's spiece.model (tests/data/gen_text_tokenizers.py). */
START_TEST(test_text_tower_tokenizers)
{
    static const char *const folders[] = {"tokenizer_folders/clip", "tokenizer_folders/siglip"};
    for (int k = 0; k < 2; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", data_dir, folders[k]);
        ck_assert_int_gt(sweep(folders[k], tokenize_json, path), 50);
    }
}
END_TEST

START_TEST(test_tokenizer)
{
    char vocab[512];
    snprintf(vocab, sizeof vocab, "%s/wordpiece/vocab.txt", data_dir);
    ck_assert_int_gt(sweep("tokenizer", tokenize, vocab), 10);
}
END_TEST

/* Every hostile file of at most 4 KiB: the loader never holds more than
 * 2 MiB at once. */
START_TEST(test_small_hostile_files_need_little_memory)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/malformed", data_dir);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t worst = 0;
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!strstr(e->d_name, ".safetensors") || stat(path, &st) || st.st_size > 4096)
            continue;
        const size_t base = tf__alloc_hook_live_bytes();
        tf__alloc_hook_reset_peak();
        ck_assert_int_ne(load(path), TF_OK);
        const size_t used = tf__alloc_hook_peak_bytes() - base;
        worst = used > worst ? used : worst;
        files++;
    }
    closedir(d);
    printf("%d hostile files of at most 4 KiB: at most %zu bytes held at once\n", files, worst);
    ck_assert_int_gt(files, 40);
    ck_assert_uint_le(worst, 2u << 20);
}
END_TEST

/* The most bytes encoding a long text may hold at once per byte of it:
 * the text's characters (16 bytes each) in at most three arrays (the
 * text's, the normalised, the first pre-tokenizer's), the tokens, and the
 * encoding's [1, T] arrays. Measured (this test prints it): 37-54. */
#define TEXT_BYTES_HELD 80

/* text [len]: a 1 MB text of English words, code, numbers, CJK and an
 * emoji, as the benchmarks' texts mix them (mostly ASCII: one character a
 * byte, the most characters a byte can make). */
static char *long_text(size_t *len)
{
    static const char line[] = "The quick brown fox jumps over the lazy dog, 1234 times; "
                               "x = f(y[2]) + 0.5; 东京是日本的首都。 Ünïcödé 🙂\n";
    const size_t n = 1000000 / (sizeof line - 1);
    char *text = malloc(n * (sizeof line - 1) + 1);
    ck_assert_ptr_nonnull(text);
    for (size_t k = 0; k < n; k++)
        memcpy(text + k * (sizeof line - 1), line, sizeof line - 1);
    *len = n * (sizeof line - 1);
    text[*len] = '\0';
    return text;
}

/* WordPiece from vocab.txt, byte-level BPE with a regex Split and NFC
 * (Qwen3's), Unigram with Precompiled: the bytes held at once while one
 * 1 MB text is encoded, per byte of it. */
START_TEST(test_long_text_memory_is_linear)
{
    static const char *const files[] = {"wordpiece/vocab.txt", "tokenizer_json/qwen3",
                                        "tokenizer_json/unigram"};
    size_t len;
    char *text = long_text(&len);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", data_dir, files[k]);
        tf_tokenizer *tok;
        ck_assert_int_eq(tf_tokenizer_load(path, NULL, &tok), TF_OK);
        const size_t base = tf__alloc_hook_live_bytes();
        tf__alloc_hook_reset_peak();
        tf_encoding *e;
        ck_assert_int_eq(tf_tokenizer_encode(tok, text, len, NULL, 0, &e), TF_OK);
        const size_t held = tf__alloc_hook_peak_bytes() - base;
        printf("%s: a %zu-byte text (%d tokens) held at most %zu bytes, %.1f a byte\n", files[k],
               len, tf_encoding_lengths(e)[0], held, (double)held / (double)len);
        ck_assert_int_gt(tf_encoding_lengths(e)[0], 100000);
        ck_assert_uint_le(held, TEXT_BYTES_HELD * len);
        tf_encoding_destroy(e);
        tf_tokenizer_destroy(tok);
    }
    free(text);
}
END_TEST

int main(void)
{
    data_dir = getenv("TFENC_DATA_DIR");
    golden_dir = getenv("TFENC_GOLDEN_DIR");
    if (!data_dir || !golden_dir)
        return 77;
    cJSON_Hooks hooks = {tf__malloc, tf__free}; /* cJSON's allocations fail in turn too */
    cJSON_InitHooks(&hooks);
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/tfenc-alloc-XXXXXX");
    if (!mkdtemp(tmp_dir))
        return EXIT_FAILURE;
    Suite *s = suite_create("alloc_failure");
    TCase *tc = tcase_create("every allocation fails once");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_create);
    tcase_add_test(tc, test_load_and_inspect);
    tcase_add_test(tc, test_forward_keeps_the_handle_usable);
    tcase_add_test(tc, test_forward_with_workspace_allocates_nothing);
    tcase_add_test(tc, test_tokenizer);
    tcase_add_test(tc, test_tokenizer_json);
    tcase_add_test(tc, test_tokenizer_folder);
    tcase_add_test(tc, test_text_tower_tokenizers);
    tcase_add_test(tc, test_pipelines);
    tcase_add_test(tc, test_image_pipelines);
    tcase_add_test(tc, test_zero_shot);
    tcase_add_test(tc, test_fill_mask);
    tcase_add_test(tc, test_small_hostile_files_need_little_memory);
    tcase_add_test(tc, test_long_text_memory_is_linear);
    suite_add_tcase(s, tc);
    const int rc = run_suite(s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? rc : EXIT_FAILURE;
}
