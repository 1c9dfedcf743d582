/* hf_arch.c — the architecture a config.json names (its family, from the
 * registry of families/registry.c), checked before its fields are read
 * (hf_config.c), and a classification head's labels. */
#define _POSIX_C_SOURCE 200809L
#include "hf_arch.h"

#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "hf_family.h"
#include "json_file.h"

#define TF_MAX_LABELS 65536

/* architectures as one string ("A, B"), for messages. */
static void list_architectures(const cJSON *archs, char *buf, size_t size)
{
    buf[0] = '\0';
    const cJSON *item;
    cJSON_ArrayForEach(item, archs)
    {
        const size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
                 cJSON_IsString(item) ? item->valuestring : "?");
    }
    if (!buf[0])
        snprintf(buf, size, "none");
}

static int ends_with(const char *s, const char *end)
{
    const size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

/* Every auto_map value (a string, or a list of them and nulls, as
 * AutoTokenizer's) names remote code f follows; else TF_ERR_UNSUPPORTED
 * naming the first that does not. */
static tf_status check_auto_map(const cJSON *auto_map, const tf__hf_family *f, const char *names,
                                const char *label)
{
    const cJSON *entry;
    cJSON_ArrayForEach(entry, auto_map)
    {
        const cJSON *values = cJSON_IsArray(entry) ? entry->child : entry;
        for (const cJSON *v = values; v; v = cJSON_IsArray(entry) ? v->next : NULL) {
            if (cJSON_IsNull(v) || (cJSON_IsString(v) && tf__hf_family_runs(f, v->valuestring)))
                continue;
            char value[160], supported[1024];
            tf__json_describe(v, value, sizeof value);
            tf__hf_family_list(supported, sizeof supported);
            return tf__fail(TF_ERR_UNSUPPORTED,
                            "%s: auto_map %s %s points at remote code "
                            "(architectures %s) that this library does not follow; %s",
                            label, entry->string, value, names, supported);
        }
    }
    return TF_OK;
}

static tf_status check_architecture(const cJSON *root, const char *label, tf__hf_arch *a)
{
    const char *model_type = "bert"; /* transformers' AutoConfig needs it; older files lack it */
    const char *position_type = NULL;
    tf_status s = tf__json_get_string(root, "model_type", label, &model_type);
    if (s == TF_OK)
        s = tf__json_get_string(root, "position_embedding_type", label, &position_type);
    if (s)
        return s;
    const cJSON *archs = cJSON_GetObjectItemCaseSensitive(root, "architectures");
    if (archs && !cJSON_IsNull(archs) && !cJSON_IsArray(archs))
        return tf__json_wrong(archs, "architectures", "a list of names", label);
    char names[256];
    list_architectures(archs, names, sizeof names);
    const cJSON *auto_map = cJSON_GetObjectItemCaseSensitive(root, "auto_map");
    a->family = tf__hf_family_find(model_type, position_type, auto_map);
    int all_known = a->family != NULL;
    const cJSON *item;
    cJSON_ArrayForEach(item, archs)
    {
        const int is_string = cJSON_IsString(item);
        all_known &= is_string && a->family &&
            tf__hf_family_has_class(a->family, item->valuestring);
        if (is_string && ends_with(item->valuestring, "ForSequenceClassification"))
            a->seq_cls = 1;
        if (is_string && ends_with(item->valuestring, "ForTokenClassification"))
            a->token_cls = 1;
        if (is_string && ends_with(item->valuestring, "ForMaskedLM"))
            a->mlm = 1;
    }
    if (!all_known)
        return tf__hf_family_unsupported(label, model_type, names);
    if (auto_map && !cJSON_IsNull(auto_map) && !cJSON_IsObject(auto_map))
        return tf__json_wrong(auto_map, "auto_map", "an object of class -> module", label);
    return auto_map ? check_auto_map(auto_map, a->family, names, label) : TF_OK;
}

static tf_status read_problem(const cJSON *root, const char *label, tf__problem *out)
{
    static const char *const names[] = {"", "single_label_classification",
                                        "multi_label_classification", "regression"};
    const char *problem = NULL;
    tf_status s = tf__json_get_string(root, "problem_type", label, &problem);
    for (int i = 1; s == TF_OK && problem && i < 4; i++)
        if (strcmp(problem, names[i]) == 0) {
            *out = (tf__problem)i;
            return TF_OK;
        }
    if (s == TF_OK && problem)
        s = tf__fail(TF_ERR_FORMAT,
                     "%s: problem_type \"%s\" is not one of "
                     "single_label_classification, multi_label_classification, regression",
                     label, problem);
    return s;
}

/* Label i of id2label (its key "i"), or "LABEL_i" without one. */
static tf_status read_label(const cJSON *id2label, int32_t i, const char *label, char **out)
{
    char key[16], fallback[24];
    snprintf(key, sizeof key, "%d", (int)i);
    snprintf(fallback, sizeof fallback, "LABEL_%d", (int)i);
    const char *name = id2label ? NULL : fallback;
    const cJSON *item = id2label ? cJSON_GetObjectItemCaseSensitive(id2label, key) : NULL;
    if (id2label && !cJSON_IsString(item))
        return tf__fail(TF_ERR_FORMAT,
                        "%s: id2label has %d entries but no string for id \"%s\" "
                        "(its keys must be 0..%d)",
                        label, cJSON_GetArraySize(id2label), key, cJSON_GetArraySize(id2label) - 1);
    if (item)
        name = item->valuestring;
    const size_t n = strlen(name) + 1;
    if (!(*out = tf__malloc(n)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a label");
    memcpy(*out, name, n);
    return TF_OK;
}

static tf_status read_labels(const cJSON *root, const char *label, tf__hf_arch *a)
{
    const cJSON *id2label = cJSON_GetObjectItemCaseSensitive(root, "id2label");
    if (id2label && cJSON_IsNull(id2label))
        id2label = NULL;
    if (id2label && !cJSON_IsObject(id2label))
        return tf__json_wrong(id2label, "id2label", "an object of id -> name", label);
    int32_t n = id2label ? cJSON_GetArraySize(id2label) : 2; /* PretrainedConfig's default */
    tf_status s = id2label
        ? TF_OK
        : tf__json_read_int(root, "num_labels", TF_JSON_NOT_NULL, 1, TF_MAX_LABELS, label, &n);
    if (s == TF_OK && (n < 1 || n > TF_MAX_LABELS))
        s = tf__fail(TF_ERR_FORMAT, "%s: id2label has %d entries: expected 1..%d", label, (int)n,
                     TF_MAX_LABELS);
    if (s == TF_OK && !(a->labels = tf__calloc((size_t)n, sizeof *a->labels)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %d labels", (int)n);
    for (int32_t i = 0; s == TF_OK && i < n; i++)
        if ((s = read_label(id2label, i, label, &a->labels[i])) == TF_OK)
            a->n_labels = i + 1;
    return s;
}

tf_status tf__hf_arch_read(tf__hf_arch *a, const char *path, const char *label)
{
    *a = (tf__hf_arch){0};
    cJSON *root;
    tf_status s = tf__json_read_file(path, label, 0, &root);
    if (s)
        return s;
    s = check_architecture(root, label, a);
    if (s == TF_OK && (a->seq_cls || a->token_cls)) {
        /* the object a CrossEncoder saves (its version, activation); null: none */
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "sentence_transformers");
        a->cross_encoder = cJSON_IsObject(st);
        if (st && !cJSON_IsNull(st) && !cJSON_IsObject(st))
            s = tf__json_wrong(st, "sentence_transformers", "an object", label);
        if (s == TF_OK && (s = read_problem(root, label, &a->problem)) == TF_OK)
            s = read_labels(root, label, a);
    }
    if (s == TF_OK && a->seq_cls) {
        a->head = a->family->seq_head;
        if (a->family->configure_head)
            s = a->family->configure_head(root, label, &a->head);
    }
    cJSON_Delete(root);
    if (s)
        tf__hf_arch_free(a);
    return s;
}

tf_status tf__hf_arch_read_labels(tf__hf_arch *a, const char *path, const char *label)
{
    *a = (tf__hf_arch){0};
    cJSON *root;
    tf_status s = tf__json_read_file(path, label, 0, &root);
    if (s == TF_OK && (s = read_problem(root, label, &a->problem)) == TF_OK)
        s = read_labels(root, label, a);
    cJSON_Delete(root);
    if (s)
        tf__hf_arch_free(a);
    return s;
}

void tf__hf_arch_free(tf__hf_arch *a)
{
    for (int32_t i = 0; a->labels && i < a->n_labels; i++)
        tf__free(a->labels[i]);
    tf__free(a->labels);
    *a = (tf__hf_arch){0};
}
