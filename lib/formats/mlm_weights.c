/* mlm_weights.c — a *ForMaskedLM's prediction head from its folder: the
 * family's tensor names and config.json keys (transformers' modeling_*.py,
 * each row below names its classes), its tensors from model.safetensors,
 * the decoder tied to the encoder's word embeddings unless the checkpoint
 * has its own. */
#define _POSIX_C_SOURCE 200809L
#include "mlm_weights.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "encoder.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "hf_arch.h"
#include "json_file.h"
#include "model_folder.h"
#include "safetensors.h"
#include "weights_files.h"

/* Where the activation after the transform's dense comes from. */
typedef enum act_source {
    ACT_GELU,       /* gelu, fixed by the class */
    ACT_HIDDEN_ACT, /* config.json's hidden_act (as the family spells the key) */
    ACT_CLASSIFIER, /* config.json's classifier_activation */
} act_source;

/* One family's masked-LM head, as its modeling_*.py names the modules. */
typedef struct mlm_names {
    const char *format;          /* the family's (hf_family.h) */
    const char *dense, *norm;    /* the transform's Linear [E, D] and LayerNorm [E] */
    const char *decoder;         /* the Linear [V, E] to the vocabulary */
    const char *bias, *bias_alt; /* the decoder's bias [V]; bias_alt: the name tied to
                                    it that older files hold instead, or NULL */
    act_source act;
    int32_t config_biases; /* 1: dense, norm and decoder biases by config.json's
                              classifier_bias, norm_bias, decoder_bias (ModernBERT's);
                              0: all present */
} mlm_names;

static const mlm_names families[] = {
    /* modeling_bert.py: BertForMaskedLM.cls = BertOnlyMLMHead, its
       BertLMPredictionHead(BertPredictionHeadTransform, decoder, bias) */
    {"huggingface-bert", "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
     "cls.predictions.decoder", "cls.predictions.bias", "cls.predictions.decoder.bias",
     ACT_HIDDEN_ACT, 0},
    /* modeling_roberta.py (and xlm_roberta, camembert): RobertaLMHead, gelu */
    {"huggingface-roberta", "lm_head.dense", "lm_head.layer_norm", "lm_head.decoder",
     "lm_head.bias", "lm_head.decoder.bias", ACT_GELU, 0},
    /* modeling_mpnet.py: MPNetLMHead, gelu */
    {"huggingface-mpnet", "lm_head.dense", "lm_head.layer_norm", "lm_head.decoder", "lm_head.bias",
     "lm_head.decoder.bias", ACT_GELU, 0},
    /* modeling_distilbert.py: DistilBertForMaskedLM, get_activation(config.activation) */
    {"huggingface-distilbert", "vocab_transform", "vocab_layer_norm", "vocab_projector",
     "vocab_projector.bias", NULL, ACT_HIDDEN_ACT, 0},
    /* modeling_electra.py: ElectraForMaskedLM, ElectraGeneratorPredictions (gelu,
       dense hidden_size -> embedding_size), generator_lm_head */
    {"huggingface-electra", "generator_predictions.dense", "generator_predictions.LayerNorm",
     "generator_lm_head", "generator_lm_head.bias", NULL, ACT_GELU, 0},
    /* modeling_modernbert.py: ModernBertForMaskedLM, ModernBertPredictionHead
       (ACT2FN[classifier_activation]), decoder with a bias by decoder_bias */
    {"huggingface-modernbert", "head.dense", "head.norm", "decoder", "decoder.bias", NULL,
     ACT_CLASSIFIER, 1},
};
enum { N_FAMILIES = sizeof families / sizeof families[0] };

/* transformers' ACT2FN names that tf__dense_activation computes. */
static const struct {
    const char *name;
    tf__dense_activation act;
} activations[] = {
    {"gelu", TF_DENSE_GELU},        /* torch's erf GELU */
    {"gelu_python", TF_DENSE_GELU}, /* the same formula written in Python */
    {"relu", TF_DENSE_RELU},        {"tanh", TF_DENSE_TANH},
    {"sigmoid", TF_DENSE_SIGMOID},  {"linear", TF_DENSE_IDENTITY}, /* LinearActivation */
};
enum { N_ACTIVATIONS = sizeof activations / sizeof activations[0] };

static const mlm_names *find_names(const tf__hf_family *family)
{
    for (int i = 0; i < N_FAMILIES; i++)
        if (strcmp(families[i].format, family->format) == 0)
            return &families[i];
    return NULL;
}

int tf__mlm_weights_known(const struct tf__hf_family *family)
{
    return family && find_names(family) != NULL;
}

static tf_status no_head(const tf__hf_family *family)
{
    char formats[512] = "";
    for (int i = 0; i < N_FAMILIES; i++) {
        const size_t n = strlen(formats);
        snprintf(formats + n, sizeof formats - n, "%s%s", i ? ", " : "", families[i].format);
    }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "config.json: a masked-LM head of format %s is not supported (%s are)",
                    family->format, formats);
}

/* The activation config.json's key names (default "gelu", as BertConfig,
 * DistilBertConfig and ModernBertConfig have it). */
static tf_status read_activation(const cJSON *root, const char *key, tf__dense_activation *act)
{
    const char *name = "gelu";
    tf_status s = tf__json_get_string(root, key, "config.json", &name);
    if (s)
        return s;
    for (int i = 0; i < N_ACTIVATIONS; i++)
        if (strcmp(name, activations[i].name) == 0) {
            *act = activations[i].act;
            return TF_OK;
        }
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "config.json: %s \"%s\" is not supported for the masked-LM head "
                    "(gelu, gelu_python, relu, tanh, sigmoid and linear are)",
                    key, name);
}

/* What config.json says of the head: its activation, which biases it has
 * (dense_bias, norm_bias, decoder_bias) and whether the decoder is tied
 * (tie_word_embeddings, PretrainedConfig's default true). */
typedef struct head_config {
    tf__dense_activation act;
    int32_t dense_bias, norm_bias, decoder_bias, tied;
} head_config;

static tf_status read_head_config(const char *dir, const tf__hf_family *family,
                                  const mlm_names *names, head_config *hc)
{
    *hc = (head_config){TF_DENSE_GELU, 1, 1, 1, 1};
    char *path;
    cJSON *root = NULL;
    tf_status s = tf__path_join(dir, "config.json", &path);
    if (s == TF_OK)
        s = tf__json_read_file(path, "config.json", 0, &root);
    tf__free(path);
    if (s)
        return s;
    s = tf__json_get_bool(root, "tie_word_embeddings", "config.json", &hc->tied);
    if (s == TF_OK && names->act != ACT_GELU)
        s = read_activation(root,
                            names->act == ACT_CLASSIFIER ? "classifier_activation"
                                                         : tf__hf_family_key(family, "hidden_act"),
                            &hc->act);
    if (names->config_biases) { /* ModernBertConfig's defaults: false, false, true */
        hc->dense_bias = 0, hc->norm_bias = 0;
        if (s == TF_OK)
            s = tf__json_get_bool(root, "classifier_bias", "config.json", &hc->dense_bias);
        if (s == TF_OK)
            s = tf__json_get_bool(root, "norm_bias", "config.json", &hc->norm_bias);
        if (s == TF_OK)
            s = tf__json_get_bool(root, "decoder_bias", "config.json", &hc->decoder_bias);
    }
    cJSON_Delete(root);
    return s;
}

/* "<name>.weight" [rows, cols] (cols 0: [rows]) of f into *w and, with
 * bias, "<name>.bias" [rows] into *b; a LayerNorm's (cols 0) "<name>.gamma"
 * and "<name>.beta" where f has those, as older checkpoints name them
 * (transformers' _fix_key renames them on loading). */
static tf_status read_module(const tf__st_file *f, const char *name, int64_t rows, int64_t cols,
                             int bias, const char *why, float **w, float **b)
{
    char w_name[128], b_name[128], gamma[128];
    snprintf(gamma, sizeof gamma, "%s.gamma", name);
    const int old = cols == 0 && tf__extra_tensor_exists(f, gamma);
    snprintf(w_name, sizeof w_name, "%s.%s", name, old ? "gamma" : "weight");
    snprintf(b_name, sizeof b_name, "%s.%s", name, old ? "beta" : "bias");
    const int64_t dims[2] = {rows, cols};
    tf_status s = tf__extra_tensor_read(f, w_name, cols ? 2 : 1, dims, TF_WEIGHTS_FILE, why, w);
    return s || !bias ? s : tf__extra_tensor_read(f, b_name, 1, dims, TF_WEIGHTS_FILE, why, b);
}

/* The decoder: its own weight [V, E] when f has one, else (tied) enc's
 * word embeddings; its bias [V] by the name that f holds. */
static tf_status read_decoder(const tf__st_file *f, const mlm_names *names, const head_config *hc,
                              const tf_encoder *enc, const char *why, tf__mlm_weights *w)
{
    const int64_t V = (int64_t)w->head.V, E = (int64_t)w->head.E;
    char name[128];
    snprintf(name, sizeof name, "%s.weight", names->decoder);
    tf_status s = TF_OK;
    if (tf__extra_tensor_exists(f, name) || !hc->tied)
        s = read_module(f, names->decoder, V, E, 0, why, &w->decoder_w, NULL);
    else
        w->tied = 1;
    w->head.decoder_w = w->tied ? enc->weights.token : w->decoder_w;
    const char *bias = names->bias_alt && !tf__extra_tensor_exists(f, names->bias) ? names->bias_alt
                                                                                   : names->bias;
    if (s == TF_OK && hc->decoder_bias)
        s = tf__extra_tensor_read(f, bias, 1, &V, TF_WEIGHTS_FILE, why, &w->decoder_b);
    return s;
}

static tf_status read_tensors(const tf__st_file *f, const mlm_names *names, const head_config *hc,
                              const tf_encoder *enc, tf__mlm_weights *w)
{
    const int64_t D = (int64_t)w->head.D, E = (int64_t)w->head.E, V = (int64_t)w->head.V;
    char why[160];
    snprintf(why, sizeof why,
             "the masked-LM head of hidden_size %lld, embedding width %lld, "
             "vocab_size %lld",
             (long long)D, (long long)E, (long long)V);
    tf_status s = read_module(f, names->dense, E, D, hc->dense_bias, why, &w->dense_w, &w->dense_b);
    if (s == TF_OK)
        s = read_module(f, names->norm, E, 0, hc->norm_bias, why, &w->norm_w, &w->norm_b);
    if (s == TF_OK)
        s = read_decoder(f, names, hc, enc, why, w);
    return s;
}

/* The head's fields from the encoder's config and the head's config. */
static tf_status size_head(const tf_encoder *enc, const head_config *hc, tf__mlm_head *h)
{
    const tf_config *c = &enc->cfg;
    if (c->vocab_size < 1)
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: vocab_size %d: a masked-LM head needs the "
                        "word embeddings",
                        (int)c->vocab_size);
    h->D = (size_t)c->d_model;
    h->E = (size_t)(c->embedding_dim > 0 ? c->embedding_dim : c->d_model);
    h->V = (size_t)c->vocab_size;
    h->act = hc->act;
    h->norm_eps = c->layer_norm_eps; /* every family's head uses its encoder's eps */
    return TF_OK;
}

tf_status tf__mlm_weights_read(const char *dir, const tf_encoder *enc, tf__mlm_weights *out)
{
    memset(out, 0, sizeof *out);
    if (!dir || !enc)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", dir ? "enc" : "dir");
    tf__hf_arch arch;
    tf_status s = tf__model_folder_arch(dir, &arch);
    if (s)
        return s;
    const mlm_names *names = find_names(arch.family);
    head_config hc;
    s = names ? read_head_config(dir, arch.family, names, &hc) : no_head(arch.family);
    tf__hf_arch_free(&arch);
    if (s == TF_OK)
        s = size_head(enc, &hc, &out->head);
    tf__st_file f;
    if (s == TF_OK && (s = tf__model_folder_open(dir, &f)) == TF_OK) {
        s = read_tensors(&f, names, &hc, enc, out);
        tf__st_close(&f);
    }
    out->head.dense_w = out->dense_w, out->head.dense_b = out->dense_b;
    out->head.norm_w = out->norm_w, out->head.norm_b = out->norm_b;
    out->head.decoder_b = out->decoder_b;
    if (s)
        tf__mlm_weights_free(out);
    return s;
}

void tf__mlm_weights_free(tf__mlm_weights *w)
{
    tf__free(w->dense_w);
    tf__free(w->dense_b);
    tf__free(w->norm_w);
    tf__free(w->norm_b);
    tf__free(w->decoder_w);
    tf__free(w->decoder_b);
    memset(w, 0, sizeof *w);
}
