/* registry.c — the one table of checkpoint families the loader knows (the
 * Hugging Face architectures, PyTorch's nn.TransformerEncoder, libtfenc's
 * own files), and lookups over it.
 *
 * Adding a family (say "foo", FooModel, tensors under "foo."):
 *  1. write families/foo.c defining `const tf__hf_family tf__family_foo`
 *     (hf_family.h says what each field is): its model_type values, the
 *     class-name prefixes of its architectures, its base-model prefix,
 *     its layers' prefix, a tf__name_rule table for the tensors outside the
 *     layers and one for those inside a layer (theirs -> the library's
 *     names, model/weights.c), and the config.json keys it renames (its
 *     `dim` for BERT's `hidden_size`: hf_config.c reads fields by BERT's
 *     key names);
 *  2. declare it below and add it to `families`, and add the file to
 *     formats/meson.build;
 *  3. a folder of it in tests/data (generated against the upstream
 *     modeling file) and the tests that load it.
 * A format no config.json names (a state_dict of another library) sets
 * model_types NULL and says how its files are recognised instead
 * (metadata_format or recognises), and may infer the configuration itself
 * (infer): families/pytorch.c is one.
 * Order matters only for files without config.json (tf__hf_family_detect):
 * a family whose names are another's (RoBERTa's are BERT's) goes after it;
 * and for the examples the message on a file of no family lists. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "hf_family.h"

extern const tf__hf_family tf__family_bert, tf__family_roberta, tf__family_distilbert,
    tf__family_modernbert, tf__family_electra, tf__family_nomic_bert, tf__family_gte,
    tf__family_jina_bert, tf__family_jina_bert_code, tf__family_mpnet, tf__family_pytorch,
    tf__family_tfenc;

static const tf__hf_family *const families[] = {
    &tf__family_bert,
    &tf__family_roberta,
    &tf__family_distilbert,
    &tf__family_modernbert,
    &tf__family_electra,
    &tf__family_nomic_bert,
    &tf__family_gte,
    &tf__family_jina_bert,
    &tf__family_jina_bert_code, /* after JinaBERT: found by its auto_map only */
    &tf__family_mpnet,
    &tf__family_pytorch,
    &tf__family_tfenc,
};
enum { N_FAMILIES = sizeof families / sizeof families[0] };

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether f follows the remote code of some string value of auto_map (an
 * object of class -> module, or of lists of them: AutoTokenizer's). */
static int runs_any(const tf__hf_family *f, const cJSON *auto_map)
{
    const cJSON *entry;
    cJSON_ArrayForEach(entry, auto_map)
    {
        const cJSON *values = cJSON_IsArray(entry) ? entry->child : entry;
        for (const cJSON *v = values; v; v = cJSON_IsArray(entry) ? v->next : NULL)
            if (cJSON_IsString(v) && tf__hf_family_runs(f, v->valuestring))
                return 1;
    }
    return 0;
}

const tf__hf_family *tf__hf_family_find(const char *model_type, const char *position_type,
                                        const cJSON *auto_map)
{
    const tf__hf_family *first = NULL, *plain = NULL, *positioned = NULL;
    for (int i = 0; i < N_FAMILIES; i++) {
        const tf__hf_family *f = families[i];
        if (!f->model_types || !in_list(f->model_types, model_type))
            continue;
        if (f->position_type && position_type && strcmp(f->position_type, position_type) == 0) {
            if (cJSON_IsObject(auto_map) && runs_any(f, auto_map))
                return f;
            if (!positioned)
                positioned = f;
        }
        if (!first)
            first = f;
        if (!f->position_type && !plain)
            plain = f;
    }
    if (positioned)
        return positioned;
    /* another position type: the family that checks it (hf_config.c refuses it by name) */
    return position_type && plain ? plain : first;
}

int tf__hf_family_runs(const tf__hf_family *f, const char *auto_map_value)
{
    for (const char *const *p = f->remote_code; p && *p; p++)
        if (starts_with(auto_map_value, *p))
            return 1;
    return 0;
}

int tf__hf_family_is_zero(const tf__hf_family *f, const char *ours)
{
    if (!f->zero_tensors || !starts_with(ours, "layers."))
        return 0;
    const char *p = ours + strlen("layers."), *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    return p != digits && *p == '.' && in_list(f->zero_tensors, p + 1);
}

int tf__hf_family_has_class(const tf__hf_family *f, const char *architecture)
{
    for (const char *const *p = f->class_prefixes; p && *p; p++)
        if (strncmp(architecture, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

const char *tf__hf_family_key(const tf__hf_family *f, const char *ours)
{
    for (const tf__hf_key *k = f->keys; k && k->ours; k++)
        if (strcmp(k->ours, ours) == 0)
            return k->theirs;
    return ours;
}

static int has_top_name(const tf__hf_family *f, const char *name)
{
    for (const tf__name_rule *r = f->top; r->theirs; r++)
        if (strcmp(r->theirs, name) == 0)
            return 1;
    return 0;
}

/* Whether name is "<layer_prefix>{i}.<one of f's layer names>" (a prefix
 * alone is not enough: ModernBERT's "layers." is PyTorch's too). */
static int has_layer_name(const tf__hf_family *f, const char *name)
{
    if (!starts_with(name, f->layer_prefix))
        return 0;
    const char *p = name + strlen(f->layer_prefix), *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == digits || *p != '.')
        return 0;
    for (const tf__name_rule *r = f->layer; r->theirs; r++)
        if (strcmp(r->theirs, p + 1) == 0)
            return 1;
    return 0;
}

/* Whether a tensor name is f's by the test of pass (0: base prefix, 1:
 * one of its layer names, 2: a top name), the prefix stripped for 1 and 2;
 * never for a family recognised otherwise. */
static int matches(const tf__hf_family *f, const char *name, int pass)
{
    if (!f->top || f->recognises)
        return 0;
    const char *bare = starts_with(name, f->base_prefix) ? name + strlen(f->base_prefix) : name;
    return pass == 0 ? bare != name : pass == 1 ? has_layer_name(f, bare) : has_top_name(f, bare);
}

const tf__hf_family *tf__hf_family_detect(const tf__st_file *file)
{
    const char *format = tf__st_metadata(file, "format");
    for (int i = 0; format && i < N_FAMILIES; i++)
        if (families[i]->metadata_format && strcmp(families[i]->metadata_format, format) == 0)
            return families[i];
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < N_FAMILIES; i++)
            for (size_t t = 0; t < file->n_tensors; t++)
                if (matches(families[i], file->tensors[t].name, pass))
                    return families[i];
    for (int i = 0; i < N_FAMILIES; i++)
        if (families[i]->recognises && families[i]->recognises(file))
            return families[i];
    return NULL;
}

/* "a, b or c" of list into buf at *n. */
static void append_list(char *buf, size_t size, size_t *n, const char *const *list,
                        const char *quote, const char *suffix)
{
    for (const char *const *p = list; *p && *n < size; p++) {
        const char *sep = p == list ? "" : p[1] ? ", " : " or ";
        *n += (size_t)snprintf(buf + *n, size - *n, "%s%s%s%s%s", sep, quote, *p, quote, suffix);
    }
}

void tf__hf_family_examples(char *buf, size_t size)
{
    const char *examples[N_FAMILIES + 1];
    int n_examples = 0;
    for (int i = 0; i < N_FAMILIES; i++)
        if (families[i]->example)
            examples[n_examples++] = families[i]->example;
    examples[n_examples] = NULL;
    size_t n = 0;
    buf[0] = '\0';
    append_list(buf, size, &n, examples, "", "");
}

void tf__hf_family_list(char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "supported: ");
    const char *sep = "";
    for (int i = 0; i < N_FAMILIES && n < size; i++) {
        if (!families[i]->model_types)
            continue;
        n += (size_t)snprintf(buf + n, size - n, "%smodel_type ", sep);
        sep = "; ";
        append_list(buf, size, &n, families[i]->model_types, "\"", "");
        if (families[i]->position_type && n < size)
            n += (size_t)snprintf(buf + n, size - n, " with position_embedding_type \"%s\"",
                                  families[i]->position_type);
        if (n < size)
            n += (size_t)snprintf(buf + n, size - n, " with architectures ");
        append_list(buf, size, &n, families[i]->class_prefixes, "", "*");
    }
}

tf_status tf__hf_family_unsupported(const char *label, const char *model_type,
                                    const char *architectures)
{
    char supported[1024];
    tf__hf_family_list(supported, sizeof supported);
    return tf__fail(TF_ERR_UNSUPPORTED, "%s: model_type \"%s\"%s%s%s is not supported; %s", label,
                    model_type, architectures ? " (architectures " : "",
                    architectures ? architectures : "", architectures ? ")" : "", supported);
}
