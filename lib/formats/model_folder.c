/* model_folder.c — a model folder's files that tf_pipeline_load reads
 * beside the encoder and the tokenizer: config.json's architecture and a
 * cross-encoder's activation, a head's tensors, tokenizer.json's subword
 * marker. */
#include "model_folder.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "safetensors.h"
#include "weights_files.h"

/* The pickles a folder may have instead of safetensors, as transformers names them. */
static const char *const torch_files[] = {TF_TORCH_WEIGHTS_FILE, TF_TORCH_SHARDS_FILE};

tf_status tf__model_folder_weights(const char *dir, char **path)
{
    mode_t mode = 0;
    tf_status s = tf__path_join(dir, TF_WEIGHTS_FILE, path);
    if (s == TF_OK)
        s = tf__file_probe(*path, &mode);
    for (size_t i = 0; s == TF_OK && !mode && i < sizeof torch_files / sizeof *torch_files; i++) {
        char *torch;
        mode_t torch_mode = 0;
        if ((s = tf__path_join(dir, torch_files[i], &torch)) == TF_OK)
            s = tf__file_probe(torch, &torch_mode);
        if (s == TF_OK && torch_mode)
            s = tf__fail(TF_ERR_UNSUPPORTED,
                         "%s: %s but no " TF_WEIGHTS_FILE ": " TF_TORCH_WEIGHTS_HINT, dir,
                         torch_files[i]);
        tf__free(torch);
    }
    if (s) {
        tf__free(*path);
        *path = NULL;
    }
    return s;
}

tf_status tf__model_folder_open(const char *dir, tf__st_file *f)
{
    char *path = NULL;
    tf_status s = tf__model_folder_weights(dir, &path);
    if (s == TF_OK)
        s = tf__st_open(f, path);
    tf__free(path);
    return s;
}

tf_status tf__model_source(const char *path, tf__source_kind *kind, char **folder)
{
    mode_t mode = 0;
    char *config = NULL;
    *folder = NULL;
    tf_status s = tf__file_probe(path, &mode);
    if (s == TF_OK && !mode)
        s = tf__fail(TF_ERR_IO, "%s: cannot open: no such file or folder", path);
    if (s == TF_OK && !S_ISDIR(mode)) { /* a file: the folder holding it */
        const char *slash = strrchr(path, '/');
        *kind = TF__SOURCE_FILE;
        return !slash       ? tf__path_join(".", "", folder)
            : slash == path ? tf__path_join("/", "", folder)
                            : tf__format_alloc(folder, "%.*s", (int)(slash - path), path);
    }
    if (s == TF_OK)
        s = tf__path_join(path, "config.json", &config);
    mode = 0;
    if (s == TF_OK)
        s = tf__file_probe(config, &mode);
    tf__free(config);
    *kind = mode ? TF__SOURCE_HF_FOLDER : TF__SOURCE_OWN_FOLDER;
    return s == TF_OK ? tf__path_join(path, "", folder) : s;
}

tf_status tf__model_folder_arch(const char *dir, tf__hf_arch *arch)
{
    char *config;
    tf_status s = tf__path_join(dir, "config.json", &config);
    if (s == TF_OK)
        s = tf__hf_arch_read(arch, config, "config.json");
    tf__free(config);
    return s;
}

/* "<name>.weight" (rank, dims) and, if bias, "<name>.bias" [dims[0]] of f:
 * a Linear's (rows, D) or a LayerNorm's (D). */
static tf_status read_weight_bias(const tf__st_file *f, const char *name, int32_t rank,
                                  const int64_t *dims, int bias, const char *why, float **w,
                                  float **b)
{
    char w_name[96], b_name[96];
    snprintf(w_name, sizeof w_name, "%s.weight", name);
    snprintf(b_name, sizeof b_name, "%s.bias", name);
    tf_status s = tf__extra_tensor_read(f, w_name, rank, dims, "model.safetensors", why, w);
    return s || !bias ? s : tf__extra_tensor_read(f, b_name, 1, dims, "model.safetensors", why, b);
}

static tf_status read_linear(const tf__st_file *f, const char *name, int64_t rows, int64_t D,
                             int bias, const char *why, float **w, float **b)
{
    const int64_t dims[2] = {rows, D};
    return read_weight_bias(f, name, 2, dims, bias, why, w, b);
}

/* A sequence head's dense layer and LayerNorm (hf_family.h), if it has them. */
static tf_status read_transform(const tf__st_file *f, const tf__hf_seq_head *head, int64_t D,
                                tf__head_weights *w)
{
    char why[160];
    snprintf(why, sizeof why, "hidden_size %lld", (long long)D);
    tf_status s = TF_OK;
    if (head->dense)
        s = read_linear(f, head->dense, D, D, head->dense_bias, why, &w->dense_w, &w->dense_b);
    if (s == TF_OK && head->norm)
        s = read_weight_bias(f, head->norm, 1, &D, head->norm_bias, why, &w->norm_w, &w->norm_b);
    return s;
}

tf_status tf__model_folder_head(const char *dir, const tf__hf_seq_head *head, int64_t n_labels,
                                int64_t D, tf__head_weights *w)
{
    memset(w, 0, sizeof *w);
    tf__st_file f;
    tf_status s = tf__model_folder_open(dir, &f);
    if (s)
        return s;
    if (head)
        s = read_transform(&f, head, D, w);
    char why[160];
    snprintf(why, sizeof why, "%lld labels in config.json id2label, hidden_size %lld",
             (long long)n_labels, (long long)D);
    if (s == TF_OK)
        s = read_linear(&f, head ? head->out : "classifier", n_labels, D, 1, why, &w->cls_w,
                        &w->cls_b);
    tf__st_close(&f);
    if (s)
        tf__head_weights_free(w);
    return s;
}

void tf__head_weights_free(tf__head_weights *w)
{
    tf__free(w->dense_w);
    tf__free(w->dense_b);
    tf__free(w->norm_w);
    tf__free(w->norm_b);
    tf__free(w->cls_w);
    tf__free(w->cls_b);
    memset(w, 0, sizeof *w);
}

/* torch.nn's activations that a cross-encoder's config.json may name and the
 * head computes: the class, the torch/nn/modules file that defines it. */
static const struct {
    const char *name, *file;
    tf__head_activation act;
} ce_activations[] = {
    {"Sigmoid", "activation", TF_HEAD_SIGMOID}, {"Identity", "linear", TF_HEAD_LOGITS},
    {"Tanh", "activation", TF_HEAD_TANH},       {"ReLU", "activation", TF_HEAD_RELU},
    {"Softmax", "activation", TF_HEAD_SOFTMAX},
};
#define N_CE_ACTIVATIONS (sizeof ce_activations / sizeof ce_activations[0])

/* 1 if path is torch.nn.<name>, torch.nn.modules.<name> or
 * torch.nn.modules.<file>.<name>: the paths that import the class. */
static int names_class(const char *path, const char *name, const char *file)
{
    static const char nn[] = "torch.nn.", modules[] = "modules.";
    if (strncmp(path, nn, sizeof nn - 1) != 0)
        return 0;
    path += sizeof nn - 1;
    if (strncmp(path, modules, sizeof modules - 1) == 0) {
        path += sizeof modules - 1;
        const size_t n = strlen(file);
        if (strncmp(path, file, n) == 0 && path[n] == '.')
            path += n + 1;
    }
    return strcmp(path, name) == 0;
}

/* The activation config.json's `field` (v: its value, NULL when absent)
 * names, as tf__model_folder_ce_activation says. */
static tf_status read_ce_activation(const cJSON *v, const char *field, int32_t *named,
                                    tf__head_activation *act)
{
    *named = 0;
    if (!v || cJSON_IsNull(v))
        return TF_OK;
    if (!cJSON_IsString(v))
        return tf__json_wrong(v, field, "a string (a torch.nn class's path)", "config.json");
    char supported[128] = "";
    for (size_t i = 0; i < N_CE_ACTIVATIONS; i++) {
        if (names_class(v->valuestring, ce_activations[i].name, ce_activations[i].file)) {
            *named = 1, *act = ce_activations[i].act;
            return TF_OK;
        }
        strcat(supported, i ? ", " : "torch.nn's ");
        strcat(supported, ce_activations[i].name);
    }
    return tf__fail(TF_ERR_UNSUPPORTED, "config.json: %s \"%s\" is not supported; supported: %s",
                    field, v->valuestring, supported);
}

tf_status tf__model_folder_ce_activation(const char *dir, int32_t *named, tf__head_activation *act)
{
    char *path;
    cJSON *root = NULL;
    tf_status s = tf__path_join(dir, "config.json", &path);
    if (s == TF_OK)
        s = tf__json_read_file(path, "config.json", 0, &root);
    tf__free(path);
    if (s)
        return s;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "sentence_transformers");
    const cJSON *fn = cJSON_IsObject(st) ? cJSON_GetObjectItemCaseSensitive(st, "activation_fn")
                                         : NULL;
    s = fn ? read_ce_activation(fn, "sentence_transformers.activation_fn", named, act)
           : read_ce_activation(
                 cJSON_GetObjectItemCaseSensitive(root, "sbert_ce_default_activation_function"),
                 "sbert_ce_default_activation_function", named, act);
    cJSON_Delete(root);
    return s;
}

tf_status tf__model_folder_subword_prefix(const char *path, int32_t *has)
{
    cJSON *root;
    tf_status s = tf__json_read_file(path, "tokenizer.json", 0, &root);
    if (s)
        return s;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(model, "continuing_subword_prefix");
    *has = cJSON_IsString(prefix) && prefix->valuestring[0];
    cJSON_Delete(root);
    return TF_OK;
}
