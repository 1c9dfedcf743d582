/* pipeline.c — tf_pipeline_load: a model folder as one handle (the
 * encoder, its tokenizer: tokenizer.json, else vocab.txt; then a
 * sentence-transformers pipeline or a classification head), assembled from
 * what formats/ reads (model_folder.h, st_modules.h), and what the handle
 * tells about itself. */
#include <stdint.h>
#include <stdio.h>

#include "abi.h"
#include "alloc.h"
#include "error.h"
#include "model_folder.h"
#include "multi_vector.h"
#include "pipeline.h"
#include "pipeline_images.h"
#include "st_sparse.h"
#include "sentence_pool.h"
#include "tokenizer/tokenizer_load.h"
#include "validate.h"
#include "vision_folder.h"

/* The limit on tokens of a model without max_position_embeddings (BERT's). */
#define TF_PIPELINE_DEFAULT_MAX_LENGTH 512
/* The least limit: a token beside [CLS] and [SEP]. */
#define TF_PIPELINE_MIN_LENGTH 3

static const tf_pipeline_options options_defaults = {
    .struct_size = sizeof(tf_pipeline_options),
    .max_seq_length = 0,
    .truncation_error = 0,
    .kind = -1,
};

void tf_pipeline_options_init_sized(tf_pipeline_options *opts, size_t struct_size)
{
    tf__abi_init(opts, struct_size, &options_defaults, sizeof options_defaults);
}

/* ---- The tokenizer ------------------------------------------------------------ */

/* The limit: the option, else sentence_bert_config.json's max_seq_length,
 * else model_max_length when below the model's positions, else those (the
 * trained length of rotary and ALiBi models, which the option and
 * max_seq_length may pass, as upstream computes them for any length). One
 * that a file gives must leave room for a token beside [CLS] and [SEP]. */
static tf_status token_limit(tf_pipeline *p, const tf_pipeline_options *o,
                             const tf__folder_config *tc)
{
    /* RoBERTa's first position_offset rows are not for tokens (514 - 2 = 512) */
    const int32_t positions = p->cfg.max_positions - p->cfg.position_offset;
    const int32_t bound = tf__longest_sequence(&p->cfg); /* 0: none */
    if (o->max_seq_length != 0 &&
        (o->max_seq_length < TF_PIPELINE_MIN_LENGTH || (bound > 0 && o->max_seq_length > bound)))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_seq_length: expected 0 (the "
                        "folder's) or %d..%d (the model's positions), got %d",
                        TF_PIPELINE_MIN_LENGTH, (int)bound, (int)o->max_seq_length);
    int32_t limit = positions > 0 ? positions : TF_PIPELINE_DEFAULT_MAX_LENGTH;
    const char *from = "config.json: max_position_embeddings less the position offset";
    if (tc->model_max_length > 0 && tc->model_max_length < limit)
        limit = tc->model_max_length, from = "tokenizer_config.json: model_max_length";
    if (p->st.max_seq_length > 0)
        limit = p->st.max_seq_length, from = "sentence_bert_config.json: max_seq_length";
    if (o->max_seq_length > 0)
        limit = o->max_seq_length;
    if (limit < TF_PIPELINE_MIN_LENGTH)
        return tf__fail(TF_ERR_FORMAT,
                        "%s %d leaves no room for a token beside the special "
                        "tokens (the pipeline needs %d or more)",
                        from, (int)limit, TF_PIPELINE_MIN_LENGTH);
    p->max_len = limit;
    return TF_OK;
}

/* The folder's tokenizer twice: p->tok, cutting at the pipeline's limit,
 * and p->probe, never cutting. */
static tf_status load_folder_tokenizers(tf_pipeline *p, const char *dir,
                                        const tf_pipeline_options *o, const tf__folder_config *tc)
{
    char *path = NULL;
    int json = 0;
    tf_status s = token_limit(p, o, tc);
    if (s == TF_OK)
        s = tf__tokenizer_folder_file(dir, &path, &json);
    p->wordpiece_subwords = 1; /* vocab.txt: "##" */
    if (s == TF_OK && json && p->kind == TF_PIPELINE_TOKEN_CLASSIFIER)
        s = tf__model_folder_subword_prefix(path, &p->wordpiece_subwords);
    tf_tokenizer_options to; /* vocab.txt: tokenizer_config.json's casing; tokenizer.json its own */
    tf_tokenizer_options_init(&to);
    const int32_t lowercase = tc->lowercase != 0; /* not said: BertTokenizer's true */
    to.lowercase = lowercase || p->st.do_lower_case;
    to.strip_accents = tc->strip_accents >= 0 ? tc->strip_accents : lowercase;
    to.split_cjk = tc->split_cjk != 0;
    to.max_length = p->max_len;
    if (s == TF_OK)
        s = tf__tokenizer_load_with_config(path, &to, tc, &p->tok);
    to.max_length = INT32_MAX; /* the probe: never cut, for counts and cuts */
    if (s == TF_OK)
        s = tf__tokenizer_load_with_config(path, &to, tc, &p->probe);
    tf__free(path);
    if (s == TF_OK && tf_tokenizer_vocab_size(p->tok) > p->cfg.vocab_size)
        s = tf__fail(TF_ERR_SHAPE,
                     "%s: %d tokens, but the model's word_embeddings has %d rows "
                     "(config.json vocab_size)",
                     json ? "tokenizer.json" : "vocab.txt", (int)tf_tokenizer_vocab_size(p->tok),
                     (int)p->cfg.vocab_size);
    return s;
}

/* p->mask_id: the tokenizer's mask_token: the one tokenizer_config.json or
 * special_tokens_map.json names, else the tokenizer class's default that
 * the vocabulary has (BertTokenizer's "[MASK]", RobertaTokenizer's and
 * XLMRobertaTokenizer's "<mask>"); -1 for none. */
static void find_mask(tf_pipeline *p, const tf__folder_config *tc)
{
    static const char *const defaults[] = {"[MASK]", "<mask>"};
    const char *named = tc->role[TF_ROLE_MASK].content;
    p->mask_id = named ? tf_tokenizer_token_to_id(p->tok, named) : -1;
    for (size_t i = 0; !named && p->mask_id < 0 && i < sizeof defaults / sizeof *defaults; i++)
        p->mask_id = tf_tokenizer_token_to_id(p->tok, defaults[i]);
}

tf_status tf__pipeline_load_tokenizers(tf_pipeline *p, const char *dir,
                                       const tf_pipeline_options *o)
{
    tf__folder_config tc;
    tf_status s = tf__folder_config_read(dir, &tc);
    if (s == TF_OK)
        s = load_folder_tokenizers(p, dir, o, &tc);
    if (s == TF_OK && p->kind == TF_PIPELINE_FILL_MASK)
        find_mask(p, &tc);
    tf__folder_config_clear(&tc);
    return s;
}

/* ---- The head ------------------------------------------------------------------- */

/* The head's weights from model.safetensors (model_folder.h): a sequence
 * head's (p->head), or a token head's classifier. */
static tf_status read_head(tf_pipeline *p, const char *dir)
{
    tf__head_weights w;
    tf_status s = tf__model_folder_head(dir, p->head, p->arch.n_labels, p->cfg.d_model, &w);
    if (s)
        return s;
    p->dense_w = w.dense_w;
    p->dense_b = w.dense_b;
    p->norm_w = w.norm_w;
    p->norm_b = w.norm_b;
    p->cls_w = w.cls_w;
    p->cls_b = w.cls_b;
    p->dim = p->arch.n_labels;
    return TF_OK;
}

/* tf_pipeline_score's activation: the one config.json names for
 * CrossEncoder, else upstream's default: Sigmoid for one label, else
 * Identity (CrossEncoder.get_default_activation_fn). */
static tf_status read_score_activation(tf_pipeline *p, const char *dir)
{
    int32_t named;
    tf_status s = tf__model_folder_ce_activation(dir, &named, &p->score_activation);
    if (s == TF_OK && !named)
        p->score_activation = p->arch.n_labels == 1 ? TF_HEAD_SIGMOID : TF_HEAD_LOGITS;
    return s;
}

static tf_status load_head(tf_pipeline *p, const char *dir)
{
    /* a family's own head module (GTE's, NomicBERT's), or ModernBERT's token
       head (its prediction head before the classifier on every token) */
    const tf__hf_seq_head *family_head = &p->arch.family->seq_head;
    if (!family_head->out || (p->arch.token_cls && family_head->norm))
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "config.json: a *For%sClassification of format "
                        "%s is not supported (its encoder loads with tf_encoder_load)",
                        p->arch.token_cls ? "Token" : "Sequence", p->arch.family->format);
    if (p->arch.token_cls) {
        p->kind = TF_PIPELINE_TOKEN_CLASSIFIER;
        return read_head(p, dir);
    }
    p->head = &p->arch.head;
    if (!p->head->dense && !p->cfg.pooler)
        return tf__fail(TF_ERR_FORMAT,
                        "model.safetensors: a *ForSequenceClassification of "
                        "model_type \"bert\" (config.json architectures) needs the pooler "
                        "(bert.pooler.dense.weight)");
    p->kind = p->arch.cross_encoder || p->arch.n_labels == 1 ? TF_PIPELINE_CROSS_ENCODER
                                                             : TF_PIPELINE_CLASSIFIER;
    tf_status s = read_head(p, dir);
    return s == TF_OK ? read_score_activation(p, dir) : s;
}

/* A *ForMaskedLM folder of a family with a masked-LM head here (others,
 * remote code's, stay embedding pipelines): its head (mlm_weights.h); the
 * pipeline's dim is the vocabulary's size. */
static tf_status load_mlm(tf_pipeline *p, const char *dir)
{
    p->kind = TF_PIPELINE_FILL_MASK;
    p->dim = p->cfg.vocab_size;
    p->st.similarity = "dot"; /* of its sparse vectors, as SparseEncoder's */
    return tf__mlm_weights_read(dir, p->enc, &p->mlm);
}

/* ---- Loading ---------------------------------------------------------------------- */

/* p->pooling: the names of st.pooling_modes in Pooling.py's order, '+' between. */
static void name_pooling(tf_pipeline *p)
{
    size_t at = 0;
    for (int32_t k = 0; k < TF_POOLING_COUNT; k++) {
        const int32_t mode = tf__pooling_order[k];
        if (p->st.pooling_modes & (1u << mode))
            at += (size_t)snprintf(p->pooling + at, sizeof p->pooling - at, "%s%s", at ? "+" : "",
                                   tf_pooling_name(mode));
    }
}

/* The pipeline of path, which tf__model_source says is a Hugging Face
 * folder, or libtfenc's own folder or weights file (an encoder and the
 * tokenizer in `folder`, pooled as sentence-transformers pools a plain
 * model). */
static tf_status load_source(tf_pipeline *p, const char *dir, tf__source_kind kind,
                             const char *folder, const tf_pipeline_options *o)
{
    const int hf = kind == TF__SOURCE_HF_FOLDER;
    tf_status s = hf ? tf__model_folder_arch(dir, &p->arch) : TF_OK;
    if (s == TF_OK && (s = tf_encoder_load(dir, NULL, &p->enc)) == TF_OK)
        s = tf_encoder_get_config(p->enc, &p->cfg);
    int modules = 0, pylate = 0;
    const int head = p->arch.seq_cls || p->arch.token_cls;
    if (s == TF_OK && hf && !head)
        s = tf__st_is_pipeline(dir, &modules);
    if (s == TF_OK && hf && !head)
        s = tf__pylate_is_folder(dir, &pylate);
    if (s == TF_OK && head) {
        s = load_head(p, dir);
    } else if (s == TF_OK && pylate) {
        s = tf__multi_vector_load(p, dir);
    } else if (s == TF_OK && modules) {
        s = tf__st_pipeline_read(&p->st, dir, p->cfg.d_model, tf__longest_sequence(&p->cfg));
    } else if (s == TF_OK && p->arch.mlm && o->kind == TF_PIPELINE_FILL_MASK &&
               tf__mlm_weights_known(p->arch.family)) {
        s = load_mlm(p, dir);
    } else if (s == TF_OK) { /* sentence-transformers' default for a plain model */
        p->st.pooling_modes = 1u << TF_POOLING_MEAN;
        p->st.pooled_dim = p->cfg.d_model;
    }
    if (s == TF_OK && p->kind == TF_PIPELINE_EMBEDDING) {
        p->dim = p->st.pooled_dim;
        name_pooling(p);
    }
    for (size_t i = p->st.n_steps; s == TF_OK && i-- > 0;) /* the last Dense's width */
        if (!p->st.steps[i].normalize) {
            p->dim = p->st.steps[i].out;
            break;
        }
    if (s == TF_OK)
        s = tf__pipeline_load_tokenizers(p, folder, o);
    return s == TF_OK && p->multi_vector ? tf__multi_vector_resolve(p, dir) : s;
}

static tf_status load_parts(tf_pipeline *p, const char *path, const tf_pipeline_options *o)
{
    tf__source_kind kind;
    char *folder;
    tf_status s = tf__model_source(path, &kind, &folder);
    int sparse = 0; /* a SparseEncoder folder (pipeline_sparse.c) */
    if (s == TF_OK && kind == TF__SOURCE_HF_FOLDER)
        s = tf__st_sparse_probe(path, &sparse);
    char *vision_dir = NULL; /* a vision folder's model (pipeline_images.c); a
                                sentence-transformers one has no config.json */
    if (s == TF_OK && kind != TF__SOURCE_FILE && !sparse)
        s = tf__vision_folder_probe(path, &vision_dir);
    const char *mlm_folder = NULL;
    if (s == TF_OK && sparse && (s = tf__pipeline_sparse_load(p, path, &mlm_folder)) == TF_OK)
        s = tf__pipeline_load_tokenizers(p, mlm_folder, o);
    else if (s == TF_OK && vision_dir)
        s = tf__pipeline_images_load(p, path, vision_dir, o);
    else if (s == TF_OK)
        s = load_source(p, path, kind, folder, o);
    tf__free(vision_dir);
    tf__free(folder);
    return s;
}

tf_status tf_pipeline_load(const char *dir, const tf_pipeline_options *opts, tf_pipeline **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    if (!dir)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "dir is NULL");
    tf_pipeline_options o = options_defaults;
    tf_status s = opts ? tf__abi_read(&o, sizeof o, opts, TF_PIPELINE_OPTIONS_SIZE_0_3, "options")
                       : TF_OK;
    if (s == TF_OK && o.truncation_error != 0 && o.truncation_error != 1)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT, "options.truncation_error: expected 0 or 1, got %d",
                     (int)o.truncation_error);
    if (s == TF_OK && o.kind != -1 && o.kind != TF_PIPELINE_FILL_MASK)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "options.kind: expected -1 (as the folder says) or %d (fill-mask), got %d",
                     (int)TF_PIPELINE_FILL_MASK, (int)o.kind);
    if (s)
        return s;
    tf_pipeline *p = tf__calloc(1, sizeof *p);
    if (!p)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the pipeline");
    p->st = (tf__st_pipeline){.default_prompt = -1, .include_prompt = 1, .similarity = "cosine"};
    p->truncation_error = o.truncation_error;
    p->mask_id = -1;
    tf_config_init(&p->cfg);
    if ((s = load_parts(p, dir, &o))) {
        tf_pipeline_destroy(p);
        return s;
    }
    *out = p;
    return TF_OK;
}

void tf_pipeline_destroy(tf_pipeline *p)
{
    if (!p)
        return;
    tf_encoder_destroy(p->enc);
    tf_tokenizer_destroy(p->tok);
    tf_tokenizer_destroy(p->probe);
    tf__st_pipeline_free(&p->st);
    tf__multi_vector_free(p->multi_vector);
    tf__hf_arch_free(&p->arch);
    tf__mlm_weights_free(&p->mlm);
    tf__pipeline_sparse_free(p->sparse);
    tf__pipeline_images_free(p->images);
    tf__free(p->dense_w);
    tf__free(p->dense_b);
    tf__free(p->norm_w);
    tf__free(p->norm_b);
    tf__free(p->cls_w);
    tf__free(p->cls_b);
    tf__free(p);
}

/* ---- What it is -------------------------------------------------------------------- */

int32_t tf_pipeline_kind_of(const tf_pipeline *p)
{
    return p ? (int32_t)p->kind : -1;
}

int32_t tf_pipeline_dim(const tf_pipeline *p)
{
    return p ? p->dim : 0;
}

int32_t tf_pipeline_max_seq_length(const tf_pipeline *p)
{
    return p ? p->max_len : 0;
}

const char *tf_pipeline_label(const tf_pipeline *p, int32_t index)
{
    return p && index >= 0 && index < p->arch.n_labels ? p->arch.labels[index] : NULL;
}

const char *tf_pipeline_pooling(const tf_pipeline *p)
{
    if (!p)
        return NULL;
    switch (p->kind) {
    case TF_PIPELINE_EMBEDDING:
        return p->pooling;
    case TF_PIPELINE_SPARSE:
    case TF_PIPELINE_FILL_MASK:
        return "splade";
    case TF_PIPELINE_CROSS_ENCODER:
    case TF_PIPELINE_CLASSIFIER:
    case TF_PIPELINE_TOKEN_CLASSIFIER:
    case TF_PIPELINE_MULTI_VECTOR:
    case TF_PIPELINE_IMAGE_EMBEDDING:
    case TF_PIPELINE_IMAGE_CLASSIFIER:
        break;
    }
    return NULL;
}

const char *tf_pipeline_similarity(const tf_pipeline *p)
{
    return p ? p->st.similarity : NULL;
}

size_t tf_pipeline_prompt_count(const tf_pipeline *p)
{
    return p ? p->st.n_prompts : 0;
}

const char *tf_pipeline_prompt_name(const tf_pipeline *p, size_t index)
{
    return p && index < p->st.n_prompts ? p->st.prompts[index].name : NULL;
}

const char *tf_pipeline_prompt(const tf_pipeline *p, const char *name)
{
    const int32_t i = p && name ? tf__st_prompt_find(&p->st, name) : -1;
    return i >= 0 ? p->st.prompts[i].text : NULL;
}

const char *tf_pipeline_default_prompt_name(const tf_pipeline *p)
{
    return p && p->st.default_prompt >= 0 ? p->st.prompts[p->st.default_prompt].name : NULL;
}
