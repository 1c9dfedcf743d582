/* model_folder.c — a model folder's files that tf_pipeline_load reads
 * beside the encoder and the tokenizer: config.json's architecture, a
 * head's tensors, tokenizer.json's subword marker. */
#include "model_folder.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "extra_tensors.h"
#include "file.h"
#include "json_file.h"
#include "safetensors.h"

tf_status tf_model_folder_arch(const char *dir, tf_hf_arch *arch)
{
    char *config;
    tf_status s = tf_path_join(dir, "config.json", &config);
    if (s == TF_OK)
        s = tf_hf_arch_read(arch, config, "config.json");
    tf_free(config);
    return s;
}

/* "<name>.weight" (rank, dims) and, if bias, "<name>.bias" [dims[0]] of f:
 * a Linear's (rows, D) or a LayerNorm's (D). */
static tf_status read_weight_bias(const tf_st_file *f, const char *name, int32_t rank,
                                  const int64_t *dims, int bias, const char *why, float **w,
                                  float **b)
{
    char w_name[96], b_name[96];
    snprintf(w_name, sizeof w_name, "%s.weight", name);
    snprintf(b_name, sizeof b_name, "%s.bias", name);
    tf_status s = tf_extra_tensor_read(f, w_name, rank, dims, "model.safetensors", why, w);
    return s || !bias ? s : tf_extra_tensor_read(f, b_name, 1, dims, "model.safetensors", why, b);
}

static tf_status read_linear(const tf_st_file *f, const char *name, int64_t rows, int64_t D,
                             int bias, const char *why, float **w, float **b)
{
    const int64_t dims[2] = {rows, D};
    return read_weight_bias(f, name, 2, dims, bias, why, w, b);
}

/* A sequence head's dense layer and LayerNorm (hf_family.h), if it has them. */
static tf_status read_transform(const tf_st_file *f, const tf_hf_seq_head *head, int64_t D,
                                tf_head_weights *w)
{
    char why[160];
    snprintf(why, sizeof why, "hidden_size %lld", (long long)D);
    tf_status s = TF_OK;
    if (head->dense)
        s = read_linear(f, head->dense, D, D, head->dense_bias, why, &w->dense_w, &w->dense_b);
    if (s == TF_OK && head->norm)
        s = read_weight_bias(f, head->norm, 1, &D, head->norm_bias, why, &w->norm_w,
                             &w->norm_b);
    return s;
}

tf_status tf_model_folder_head(const char *dir, const tf_hf_seq_head *head, int64_t n_labels,
                               int64_t D, tf_head_weights *w)
{
    memset(w, 0, sizeof *w);
    char *path;
    tf_status s = tf_path_join(dir, "model.safetensors", &path);
    tf_st_file f;
    if (s == TF_OK)
        s = tf_st_open(&f, path);
    tf_free(path);
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
    tf_st_close(&f);
    if (s)
        tf_head_weights_free(w);
    return s;
}

void tf_head_weights_free(tf_head_weights *w)
{
    tf_free(w->dense_w);
    tf_free(w->dense_b);
    tf_free(w->norm_w);
    tf_free(w->norm_b);
    tf_free(w->cls_w);
    tf_free(w->cls_b);
    memset(w, 0, sizeof *w);
}

tf_status tf_model_folder_subword_prefix(const char *path, int32_t *has)
{
    cJSON *root;
    tf_status s = tf_json_read_file(path, "tokenizer.json", 0, &root);
    if (s)
        return s;
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    const cJSON *prefix = cJSON_GetObjectItemCaseSensitive(model, "continuing_subword_prefix");
    *has = cJSON_IsString(prefix) && prefix->valuestring[0];
    cJSON_Delete(root);
    return TF_OK;
}
