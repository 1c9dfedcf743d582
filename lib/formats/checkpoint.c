/* checkpoint.c — a checkpoint read through its family (hf_family.h: a
 * Hugging Face architecture, PyTorch's nn.TransformerEncoder or libtfenc's
 * own files): recognising the family, mapping the file's tensor names onto
 * the library's, inferring and cross-checking the config, checking every
 * tensor against the layout, and filling the weights. */
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "abi.h"
#include "alloc.h"
#include "config.h"
#include "error.h"
#include "file.h"
#include "hf_arch.h"
#include "hf_config.h"
#include "hf_family.h"
#include "model_folder.h"
#include "names.h"

/* ---- Name rules: theirs -> ours (each family's, in families/) ------------ */

static const tf__name_rule *find_rule(const tf__name_rule *rules, const char *theirs)
{
    for (; rules->theirs; rules++)
        if (strcmp(rules->theirs, theirs) == 0)
            return rules;
    return NULL;
}

/* "<prefix><index>.<rest>": 1 (sets *layer, *rest), 0 if name is not of that
 * form, -1 if the index is past the layer limit. */
static int split_layer(const char *name, const char *prefix, int *layer, const char **rest)
{
    const size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0)
        return 0;
    const char *p = name + n;
    long value = 0;
    size_t digits = 0;
    while (p[digits] >= '0' && p[digits] <= '9') {
        if (value < TF_MAX_LAYERS)
            value = value * 10 + (p[digits] - '0');
        digits++;
    }
    if (digits == 0 || p[digits] != '.' || (digits > 1 && p[0] == '0'))
        return 0;
    if (value >= TF_MAX_LAYERS)
        return -1;
    *layer = (int)value;
    *rest = p + digits + 1;
    return 1;
}

static void set_dest(tf__mapping *m, const tf__name_rule *rule, int layer)
{
    if (layer >= 0)
        snprintf(m->dest, sizeof m->dest, "layers.%d.%s", layer, rule->ours);
    else
        snprintf(m->dest, sizeof m->dest, "%s", rule->ours);
    m->parts = rule->parts;
}

static tf_status layer_limit_error(const char *name)
{
    return tf__fail(TF_ERR_FORMAT, "tensor '%s': layer index exceeds the limit of %d layers", name,
                    TF_MAX_LAYERS);
}

/* name by the family's rules: outside the layers, in layer i, or (a family
 * of single_layer) one layer's alone as layer 0. */
static tf_status map_by_rules(tf__checkpoint *ck, const char *name, tf__mapping *m)
{
    const tf__hf_family *f = ck->family;
    const char *bare = name;
    const size_t n_prefix = strlen(f->base_prefix);
    if (strncmp(name, f->base_prefix, n_prefix) == 0) {
        bare = name + n_prefix;
        ck->prefix = f->base_prefix;
    }
    const tf__name_rule *rule = find_rule(f->top, bare);
    int layer;
    const char *rest;
    if (rule) {
        set_dest(m, rule, -1);
        return TF_OK;
    }
    const int split = split_layer(bare, f->layer_prefix, &layer, &rest);
    if (split < 0)
        return layer_limit_error(name);
    if (split > 0 && (rule = find_rule(f->layer, rest))) {
        set_dest(m, rule, layer);
        m->swap_halves = rule->parts == 2 && f->gate_first;
    } else if (f->single_layer && (rule = find_rule(f->layer, bare))) {
        set_dest(m, rule, 0);
        ck->single_layer = 1;
    }
    return TF_OK;
}

/* The library's own name, mapped to itself (a family without rules); one
 * too long for any tensor stays unmapped, which the layout check names. */
static void map_own(const char *name, tf__mapping *m)
{
    if (strlen(name) < sizeof m->dest) {
        snprintf(m->dest, sizeof m->dest, "%s", name);
        m->parts = 1;
    }
}

/* The name a missing tensor would have in the file's format. */
static void their_name(const tf__checkpoint *ck, const char *ours, char *buf, size_t size)
{
    int layer;
    const char *rest;
    const int in_layer = split_layer(ours, "layers.", &layer, &rest) > 0;
    const tf__name_rule *rules = in_layer ? ck->family->layer : ck->family->top;
    for (; rules && rules->theirs; rules++) {
        if (strcmp(rules->ours, in_layer ? rest : ours) != 0)
            continue;
        if (!in_layer)
            snprintf(buf, size, "%s%s", ck->prefix, rules->theirs);
        else if (ck->single_layer)
            snprintf(buf, size, "%s", rules->theirs);
        else
            snprintf(buf, size, "%s%s%d.%s", ck->prefix, ck->family->layer_prefix, layer,
                     rules->theirs);
        return;
    }
    snprintf(buf, size, "%s", ours);
}

/* ---- Family detection ----------------------------------------------------- */

const char *tf__checkpoint_format_name(const tf__checkpoint *ck)
{
    return ck->family->format;
}

/* The family from the file (tf__hf_family_detect); among the Hugging Face
 * families the one of config.json's model_type when it has one (RoBERTa's
 * names are BERT's). */
static tf_status detect_family(tf__checkpoint *ck, const tf__hf_family *json_family)
{
    const tf__hf_family *by_file = tf__hf_family_detect(&ck->file);
    if (!by_file) {
        char examples[512];
        tf__hf_family_examples(examples, sizeof examples);
        return tf__fail(TF_ERR_FORMAT, "no tensor names of a known model: expected %s", examples);
    }
    ck->family = json_family && by_file->model_types ? json_family : by_file;
    return TF_OK;
}

/* ---- Config inference ------------------------------------------------------ */

/* The index of the file tensor mapped to dest, or n_tensors. */
static size_t index_of(const tf__checkpoint *ck, const char *dest)
{
    size_t i = 0;
    while (i < ck->file.n_tensors && strcmp(ck->map[i].dest, dest) != 0)
        i++;
    return i;
}

/* The file tensor mapped to dest, or NULL. */
static const tf__st_tensor *source_of(const tf__checkpoint *ck, const char *dest)
{
    const size_t i = index_of(ck, dest);
    return i < ck->file.n_tensors ? &ck->file.tensors[i] : NULL;
}

tf_status tf__checkpoint_dim(const tf__checkpoint *ck, const char *dest, const char *what, int axis,
                             int32_t *out)
{
    const tf__st_tensor *t = source_of(ck, dest);
    char theirs[160];
    if (!t) {
        their_name(ck, dest, theirs, sizeof theirs);
        return tf__fail(TF_ERR_FORMAT, "missing tensor '%s' (for %s, which gives %s)", theirs, dest,
                        what);
    }
    if (t->rank != 2)
        return tf__fail(TF_ERR_SHAPE, "%s: expected a 2-D tensor (for %s), got rank %d", t->name,
                        dest, (int)t->rank);
    if (t->dims[axis] > INT32_MAX)
        return tf__fail(TF_ERR_SHAPE, "%s: dimension %lld is too large", t->name,
                        (long long)t->dims[axis]);
    *out = (int32_t)(t->dims[axis] / (axis == 0 ? ck->map[index_of(ck, dest)].parts : 1));
    return TF_OK;
}

int32_t tf__checkpoint_has_part(const tf__checkpoint *ck, const char *start, const char *end)
{
    const size_t n_start = strlen(start), n_end = strlen(end);
    for (size_t i = 0; i < ck->file.n_tensors; i++) {
        const char *dest = ck->map[i].dest;
        const size_t n = strlen(dest);
        if (dest[0] && n >= n_start + n_end && strncmp(dest, start, n_start) == 0 &&
            strcmp(dest + n - n_end, end) == 0)
            return 1;
    }
    return 0;
}

int32_t tf__checkpoint_count_layers(const tf__checkpoint *ck)
{
    int32_t n = 0;
    for (size_t i = 0; i < ck->file.n_tensors; i++) {
        int layer;
        const char *rest;
        if (split_layer(ck->map[i].dest, "layers.", &layer, &rest) > 0 && layer + 1 > n)
            n = layer + 1;
    }
    return n;
}

/* config.json's key (BERT's spelling, the message the family's) of value
 * (its text) disagrees with the tensor the library's dest comes from. */
static tf_status disagree(const char *key, const char *value, const char *dest,
                          const tf__checkpoint *ck)
{
    key = tf__hf_family_key(ck->family, key);
    const tf__st_tensor *t = source_of(ck, dest);
    char theirs[160];
    if (!t) {
        their_name(ck, dest, theirs, sizeof theirs);
        return tf__fail(TF_ERR_FORMAT,
                        "config.json: %s is %s, but the file has no tensor '%s' "
                        "(for %s)",
                        key, value, theirs, dest);
    }
    char shape[96];
    tf__format_shape(shape, sizeof shape, t->rank, t->dims);
    return tf__fail(TF_ERR_SHAPE, "config.json: %s %s disagrees with %s %s", key, value, t->name,
                    shape);
}

/* config.json's value must agree with what the shapes say. */
static tf_status agree(const char *key, int64_t json_value, int32_t shape_value, const char *dest,
                       const tf__checkpoint *ck)
{
    if (json_value < 0 || json_value == shape_value)
        return TF_OK;
    char value[24];
    snprintf(value, sizeof value, "%lld", (long long)json_value);
    return disagree(key, value, dest, ck);
}

/* config.json's vocab_size against the token embedding's rows: a family
 * that pads its vocabulary (NomicBertModel rounds vocab_size up to a
 * multiple of pad_vocab_size_multiple before it builds word_embeddings)
 * holds that many rows, or vocab_size's as given. */
static tf_status agree_vocab(const tf__hf_config *json, int32_t rows, const tf__checkpoint *ck)
{
    const int64_t v = json->vocab_size, m = json->pad_vocab_size_multiple;
    if (!ck->family->pads_vocab || v <= 0 || m <= 1 || v % m == 0 || v == rows)
        return agree("vocab_size", v, rows, "embed.token.weight", ck);
    const int64_t padded = (v + m - 1) / m * m;
    if (padded == rows)
        return TF_OK;
    char value[160];
    snprintf(value, sizeof value,
             "%lld (%lld once rounded up to a multiple of "
             "pad_vocab_size_multiple %lld)",
             (long long)v, (long long)padded, (long long)m);
    return disagree("vocab_size", value, "embed.token.weight", ck);
}

/* vocab_size and the embeddings' width from the token embedding; d_model
 * from it too, or from embed.project [D, E] when the file has one (ELECTRA's
 * embeddings_project: embedding_dim E). *d_model_from: the tensor that gave
 * d_model. */
static tf_status infer_widths(const tf__checkpoint *ck, tf_config *c, const char **d_model_from)
{
    int32_t E;
    tf_status s;
    if ((s = tf__checkpoint_dim(ck, "embed.token.weight", "vocab_size", 0, &c->vocab_size)) ||
        (s = tf__checkpoint_dim(ck, "embed.token.weight", "d_model", 1, &E)))
        return s;
    *d_model_from = "embed.token.weight";
    c->d_model = E;
    if (!source_of(ck, "embed.project.weight"))
        return TF_OK;
    *d_model_from = "embed.project.weight";
    c->embedding_dim = E;
    return tf__checkpoint_dim(ck, "embed.project.weight", "d_model", 0, &c->d_model);
}

/* The BERT-like inference (a family without infer): the widths, layers,
 * positions and parts from the mapped tensors, the rest from config.json
 * (json: all unset without one), then the family's configure, then
 * config.json's sizes checked against the shapes. */
static tf_status infer_hf(tf__checkpoint *ck, const tf__hf_config *json, tf_config *c)
{
    const char *d_model_from;
    tf_status s = infer_widths(ck, c, &d_model_from);
    if (s)
        return s;
    c->n_layers = tf__checkpoint_count_layers(ck);
    if (c->n_layers == 0)
        return tf__fail(TF_ERR_FORMAT, "no encoder layers (%s%sN.*) in the file", ck->prefix,
                        ck->family->layer_prefix);
    if ((s = tf__checkpoint_dim(ck, "layers.0.ffn.up.weight", "d_ff", 0, &c->d_ff)))
        return s;
    c->position = TF_POSITION_NONE;
    if (source_of(ck, "embed.position.weight")) {
        c->position = TF_POSITION_LEARNED;
        if ((s = tf__checkpoint_dim(ck, "embed.position.weight", "max_positions", 0,
                                    &c->max_positions)))
            return s;
    }
    if (ck->family->padded_positions && c->position == TF_POSITION_LEARNED) {
        const int64_t pad = json->pad_token_id >= 0 ? json->pad_token_id
                                                    : ck->family->default_pad_token_id;
        if (pad + 1 >= c->max_positions)
            return tf__fail(TF_ERR_FORMAT,
                            "config.json: pad_token_id %lld leaves no positions "
                            "of the %d that %s%s has (they start at pad_token_id + 1)",
                            (long long)pad, (int)c->max_positions, ck->prefix,
                            "embeddings.position_embeddings.weight");
        c->position_offset = (int32_t)pad + 1;
    }
    if (source_of(ck, "embed.token_type.weight") &&
        (s = tf__checkpoint_dim(ck, "embed.token_type.weight", "n_token_types", 0,
                                &c->n_token_types)))
        return s;
    c->embedding_norm = tf__checkpoint_has_part(ck, "embed.norm.", "");
    c->pooler = tf__checkpoint_has_part(ck, "pooler.", "");
    c->bias = tf__checkpoint_has_part(ck, "", ".bias");
    c->norm_placement = TF_NORM_POST;
    c->activation = json->activation >= 0 ? json->activation : TF_ACTIVATION_GELU;
    c->layer_norm_eps = json->layer_norm_eps > 0 ? (float)json->layer_norm_eps : 1e-12f;
    c->n_heads = json->num_attention_heads > 0 ? (int32_t)json->num_attention_heads : 0;
    if (ck->family->configure && (s = ck->family->configure(json, c)))
        return s;
    if ((s = agree("hidden_size", json->hidden_size, c->d_model, d_model_from, ck)) ||
        (s = agree("embedding_size", json->embedding_size, tf__embed_width(c), "embed.token.weight",
                   ck)) ||
        (s = agree_vocab(json, c->vocab_size, ck)) ||
        (s = agree("intermediate_size", json->intermediate_size, c->d_ff, "layers.0.ffn.up.weight",
                   ck)) ||
        (s = agree("max_position_embeddings", json->max_position_embeddings, c->max_positions,
                   "embed.position.weight", ck)) ||
        (s = agree("type_vocab_size", json->type_vocab_size, c->n_token_types,
                   "embed.token_type.weight", ck)))
        return s;
    if (json->num_hidden_layers >= 0 && json->num_hidden_layers != c->n_layers)
        return tf__fail(TF_ERR_FORMAT, "config.json: %s %lld, but the file has layers 0..%d",
                        tf__hf_family_key(ck->family, "num_hidden_layers"),
                        (long long)json->num_hidden_layers, (int)c->n_layers - 1);
    return TF_OK;
}

/* Each option is "from the file" or a value the library has (n_heads up
 * to the d_model the file gives). */
static tf_status check_options(const tf_load_options *o, int32_t d_model)
{
    if (o->n_heads < 0 || o->n_heads > d_model)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.n_heads: expected 0 (from the file) or "
                        "1..%d (d_model), got %d",
                        (int)d_model, (int)o->n_heads);
    if (o->activation < -1 || o->activation >= TF_ACTIVATION_COUNT)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.activation: expected -1 (from the file) "
                        "or 0..%d, got %d",
                        TF_ACTIVATION_COUNT - 1, (int)o->activation);
    if (o->norm_placement < -1 || o->norm_placement >= TF_NORM_COUNT)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.norm_placement: expected -1 (from the "
                        "file) or 0..%d, got %d",
                        TF_NORM_COUNT - 1, (int)o->norm_placement);
    if (o->layer_norm_eps != 0.0f && !(o->layer_norm_eps > 0.0f && isfinite(o->layer_norm_eps)))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.layer_norm_eps: expected 0 (from the "
                        "file) or a finite value > 0, got %g",
                        (double)o->layer_norm_eps);
    return TF_OK;
}

/* Options win over the file; then nothing may be left unknown (the
 * message says why the family's files may not say it). */
static tf_status apply_options(tf_config *c, const tf_load_options *opts,
                               const tf__hf_family *family)
{
    tf_status s = opts ? check_options(opts, c->d_model) : TF_OK;
    if (s)
        return s;
    if (opts) {
        if (opts->n_heads > 0)
            c->n_heads = opts->n_heads;
        if (opts->activation >= 0)
            c->activation = opts->activation;
        if (opts->norm_placement >= 0)
            c->norm_placement = opts->norm_placement;
        if (opts->layer_norm_eps > 0)
            c->layer_norm_eps = opts->layer_norm_eps;
    }
    const char *why = family->unrecorded ? family->unrecorded
                                         : "no config.json gives num_attention_heads";
    if (c->n_heads <= 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "n_heads is unknown (%s): pass it in "
                        "tf_load_options.n_heads or __metadata__ \"n_heads\"",
                        why);
    if (c->activation < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "activation is unknown (%s): pass it in "
                        "tf_load_options.activation or __metadata__ \"activation\"",
                        why);
    if (c->norm_placement < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "norm_first is unknown (%s): pass it in "
                        "tf_load_options.norm_placement or __metadata__ \"norm_first\"",
                        why);
    return TF_OK;
}

/* ---- Shapes, dtypes and coverage ---------------------------------------- */

static tf_status check_dtype(const tf__st_tensor *src)
{
    if (src->dtype != TF_DTYPE_F32 && src->dtype != TF_DTYPE_F16 && src->dtype != TF_DTYPE_BF16)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "%s: dtype %s is not supported for weights (F32, F16 "
                        "and BF16 are)",
                        src->name, tf__dtype_name(src->dtype));
    return TF_OK;
}

static tf_status check_tensor(const tf__st_tensor *src, const tf__mapping *m, const tf__tensor *t)
{
    const int64_t d0 = t->dims[0] * m->parts;
    const int same = src->rank == t->rank && src->dims[0] == d0 &&
        (t->rank == 1 || src->dims[1] == t->dims[1]);
    if (!same) {
        char want[96], got[160];
        const int64_t want_dims[2] = {d0, t->dims[1]};
        tf__format_shape(want, sizeof want, t->rank, want_dims);
        tf__format_shape(got, sizeof got, src->rank, src->dims);
        const char *stacked = m->parts == 3 ? " with k and v stacked"
            : m->parts == 2                 ? " with ffn.gate stacked"
                                            : "";
        return tf__fail(TF_ERR_SHAPE, "%s: expected %s (for %s%s), got %s", src->name, want,
                        t->name, stacked, got);
    }
    return check_dtype(src);
}

/* Index of the first element that is NaN or infinite (all exponent bits
 * set), or src->count. */
static size_t first_non_finite(const tf__st_tensor *src)
{
    const unsigned char *p = src->data;
    for (size_t i = 0; i < src->count; i++) {
        int all_ones;
        if (src->dtype == TF_DTYPE_F32) /* bits 23..30 */
            all_ones = (p[4 * i + 3] & 0x7F) == 0x7F && (p[4 * i + 2] & 0x80) == 0x80;
        else if (src->dtype == TF_DTYPE_F16) /* bits 10..14 */
            all_ones = (p[2 * i + 1] & 0x7C) == 0x7C;
        else /* BF16: bits 7..14 */
            all_ones = (p[2 * i + 1] & 0x7F) == 0x7F && (p[2 * i] & 0x80) == 0x80;
        if (all_ones)
            return i;
    }
    return src->count;
}

static tf_status check_finite(const tf__st_tensor *src)
{
    const size_t i = first_non_finite(src);
    if (i == src->count)
        return TF_OK;
    if (src->rank == 2)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: element [%zu, %zu] is not finite; weights must be "
                        "finite",
                        src->name, i / (size_t)src->dims[1], i % (size_t)src->dims[1]);
    return tf__fail(TF_ERR_FORMAT, "%s: element [%zu] is not finite; weights must be finite",
                    src->name, i);
}

tf_status tf__checkpoint_check_values(const tf__st_tensor *src)
{
    tf_status s = check_dtype(src);
    return s ? s : check_finite(src);
}

/* Whether the library's tensor `ours` is one the file's family leaves out
 * as zero (tf__hf_family.zero_tensors). */
static int is_zero(const tf__checkpoint *ck, const char *ours)
{
    return tf__hf_family_is_zero(ck->family, ours);
}

/* Every mapped tensor fits its place and holds finite values; every place
 * is filled exactly once, but those the family leaves out as zero. */
static tf_status check_against_layout(const tf__checkpoint *ck, const tf__weights *layout)
{
    size_t *source = tf__malloc((layout->n_tensors ? layout->n_tensors : 1) * sizeof *source);
    if (!source)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the coverage table");
    for (size_t i = 0; i < layout->n_tensors; i++)
        source[i] = SIZE_MAX;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < ck->file.n_tensors; i++) {
        const tf__mapping *m = &ck->map[i];
        const tf__st_tensor *src = &ck->file.tensors[i];
        if (!m->dest[0])
            continue;
        const tf__tensor *t = tf__weights_find(layout, m->dest);
        if (!t) {
            s = tf__fail(TF_ERR_FORMAT,
                         "%s: maps to %s, which a model of this configuration "
                         "does not have (biases %s, %d layers)",
                         src->name, m->dest, ck->cfg.bias ? "on" : "off", (int)ck->cfg.n_layers);
            break;
        }
        if (m->parts == 2 && !ck->cfg.ffn_gated) { /* else it would fill the next tensor */
            s = tf__fail(TF_ERR_FORMAT,
                         "%s: holds a gated feed-forward block's two halves (for "
                         "%s and ffn.gate), but this configuration's block is not gated",
                         src->name, m->dest);
            break;
        }
        if ((s = check_tensor(src, m, t)) || (s = check_finite(src)))
            break;
        for (int32_t p = 0; p < m->parts && s == TF_OK; p++) {
            const size_t k = (size_t)(t - layout->tensors) + (size_t)p;
            if (source[k] != SIZE_MAX)
                s = tf__fail(TF_ERR_FORMAT, "tensors '%s' and '%s' both map to %s",
                             ck->file.tensors[source[k]].name, src->name, layout->tensors[k].name);
            source[k] = i;
        }
    }
    for (size_t k = 0; s == TF_OK && k < layout->n_tensors; k++) {
        if (source[k] != SIZE_MAX || is_zero(ck, layout->tensors[k].name))
            continue;
        char theirs[160], shape[64];
        their_name(ck, layout->tensors[k].name, theirs, sizeof theirs);
        tf__format_shape(shape, sizeof shape, layout->tensors[k].rank, layout->tensors[k].dims);
        s = tf__fail(TF_ERR_FORMAT, "missing tensor '%s' (for %s %s)", theirs,
                     layout->tensors[k].name, shape);
    }
    tf__free(source);
    return s;
}

/* ---- Opening -------------------------------------------------------------- */

/* The safetensors file and the optional config.json of path. */
static tf_status resolve_paths(const char *path, char **weights, char **json)
{
    *weights = *json = NULL;
    mode_t mode = 0, json_mode = 0;
    tf_status s = tf__file_probe(path, &mode);
    if (s == TF_OK && !mode)
        s = tf__fail(TF_ERR_IO, "%s: cannot open: %s", path, strerror(ENOENT));
    const int dir = S_ISDIR(mode);
    if (s == TF_OK)
        s = dir ? tf__model_folder_weights(path, weights) : tf__path_join(path, "", weights);
    if (s == TF_OK && dir)
        s = tf__path_join(path, "config.json", json);
    if (s == TF_OK && *json)
        s = tf__file_probe(*json, &json_mode);
    if (s || !json_mode) { /* config.json is optional; a link to nothing is not absent */
        tf__free(*json);
        *json = NULL;
    }
    if (s) {
        tf__free(*weights);
        *weights = NULL;
    }
    return s;
}

static tf_status map_names(tf__checkpoint *ck)
{
    ck->map = tf__calloc(ck->file.n_tensors ? ck->file.n_tensors : 1, sizeof *ck->map);
    if (!ck->map)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu name mappings",
                        ck->file.n_tensors);
    for (size_t i = 0; i < ck->file.n_tensors; i++) {
        const char *name = ck->file.tensors[i].name;
        tf__mapping *m = &ck->map[i];
        tf_status s = TF_OK;
        if (ck->family->top)
            s = map_by_rules(ck, name, m);
        else
            map_own(name, m);
        if (s)
            return s;
    }
    return TF_OK;
}

/* The configuration: from the names and shapes, config.json or metadata
 * (the family's infer, else the BERT-like inference), then the options;
 * validated. */
static tf_status infer_config(tf__checkpoint *ck, const tf__hf_config *json,
                              const tf_load_options *opts)
{
    tf_config c;
    tf_config_init(&c);
    tf__hf_config none;
    tf__hf_config_init(&none);
    tf_status s = ck->family->infer ? ck->family->infer(ck, &c)
                                    : infer_hf(ck, json ? json : &none, &c);
    if (s == TF_OK)
        s = apply_options(&c, opts, ck->family);
    if (s == TF_OK)
        s = tf__config_validate(&c, &ck->cfg);
    return s;
}

tf_status tf__checkpoint_understand(tf__checkpoint *ck, const tf__hf_config *json,
                                    const tf_load_options *opts)
{
    ck->prefix = "";
    tf_status s = detect_family(ck, json ? json->family : NULL);
    if (s == TF_OK)
        s = map_names(ck);
    if (s == TF_OK)
        s = infer_config(ck, json, opts);
    tf__weights layout;
    if (s == TF_OK && (s = tf__weights_layout(&layout, &ck->cfg)) == TF_OK) {
        s = check_against_layout(ck, &layout);
        tf__weights_destroy(&layout);
    }
    if (s)
        tf__checkpoint_close(ck);
    return s;
}

tf_status tf__checkpoint_open(tf__checkpoint *ck, const char *path, const tf_load_options *opts)
{
    memset(ck, 0, sizeof *ck);
    ck->prefix = "";
    if (!path)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "path is NULL");
    tf_load_options o = tf__load_options_defaults;
    tf_status s = opts ? tf__abi_read(&o, sizeof o, opts, TF_LOAD_OPTIONS_SIZE_0_1, "options")
                       : TF_OK;
    if (s)
        return s;
    opts = &o;
    char *weights_path, *json_path;
    tf__hf_config json;
    s = resolve_paths(path, &weights_path, &json_path);
    tf__hf_arch arch; /* the architecture is checked first: its message names it */
    if (s == TF_OK && json_path && (s = tf__hf_arch_read(&arch, json_path, json_path)) == TF_OK)
        tf__hf_arch_free(&arch);
    if (s == TF_OK && json_path)
        s = tf__hf_config_read(&json, json_path);
    if (s == TF_OK)
        s = tf__st_open(&ck->file, weights_path);
    if (s == TF_OK)
        s = tf__checkpoint_understand(ck, json_path ? &json : NULL, opts);
    tf__free(weights_path);
    tf__free(json_path);
    return s;
}

void tf__checkpoint_close(tf__checkpoint *ck)
{
    tf__st_close(&ck->file);
    tf__free(ck->map);
    memset(ck, 0, sizeof *ck);
    ck->prefix = "";
}

/* ---- Filling the weights ------------------------------------------------- */

static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    float magnitude;
    if (exp == 0)
        magnitude = ldexpf((float)mant, -24); /* zero and subnormals */
    else if (exp == 31)
        magnitude = mant ? NAN : INFINITY;
    else
        magnitude = ldexpf((float)(mant | 0x400u), (int)exp - 25);
    return sign ? -magnitude : magnitude;
}

/* Value i of src as float32. */
static float value_at(const tf__st_tensor *src, size_t i)
{
    float value;
    if (src->dtype == TF_DTYPE_F32) {
        memcpy(&value, (const unsigned char *)src->data + 4 * i, sizeof value);
        return value;
    }
    const unsigned char *p = (const unsigned char *)src->data + 2 * i;
    const uint16_t bits = (uint16_t)(p[0] | p[1] << 8);
    if (src->dtype == TF_DTYPE_F16)
        return half_to_float(bits);
    const uint32_t wide = (uint32_t)bits << 16;
    memcpy(&value, &wide, sizeof value);
    return value;
}

void tf__checkpoint_convert(float *dst, const tf__st_tensor *src)
{
    if (src->dtype == TF_DTYPE_F32) {
        memcpy(dst, src->data, src->count * sizeof *dst);
        return;
    }
    for (size_t i = 0; i < src->count; i++)
        dst[i] = value_at(src, i);
}

/* A transposed fill goes through tiles of this many source rows by a cache
 * line of columns. */
#define FILL_TILE_ROWS 64
#define FILL_TILE_COLUMNS 16

/* Source rows r0 .. r0 + nr - 1, columns c0 .. c0 + nc - 1 (nc <=
 * FILL_TILE_COLUMNS) of src, cols wide, into stored (nc, ld) at row offset
 * r0: stored[k * ld + r] = src[r, c0 + k]. */
static void fill_tile(float *stored, size_t ld, const tf__st_tensor *src, size_t cols, size_t r0,
                      size_t nr, size_t c0, size_t nc)
{
    for (size_t r = r0; r < r0 + nr; r++) {
        float line[FILL_TILE_COLUMNS];
        if (src->dtype == TF_DTYPE_F32)
            memcpy(line, (const float *)src->data + r * cols + c0, nc * sizeof *line);
        else
            for (size_t k = 0; k < nc; k++)
                line[k] = value_at(src, r * cols + c0 + k);
        for (size_t k = 0; k < nc; k++)
            stored[k * ld + r] = line[k];
    }
}

/* t's values, and for a fused source those of the tensors that share its
 * matrix (tf__tensor_at), from src converted to float32; a transposed
 * projection tile by tile, so that both sides stay in cache. */
static void fill_from(tf__weights *w, const tf__tensor *t, const tf__st_tensor *src)
{
    if (!t->transposed_ld) {
        tf__checkpoint_convert(w->block + t->offset, src);
        return;
    }
    const size_t cols = (size_t)t->dims[1], rows = src->count / cols, ld = t->transposed_ld;
    for (size_t r0 = 0; r0 < rows; r0 += FILL_TILE_ROWS) {
        const size_t nr = rows - r0 < FILL_TILE_ROWS ? rows - r0 : FILL_TILE_ROWS;
        for (size_t c0 = 0; c0 < cols; c0 += FILL_TILE_COLUMNS) {
            const size_t nc = cols - c0 < FILL_TILE_COLUMNS ? cols - c0 : FILL_TILE_COLUMNS;
            fill_tile(w->block + t->offset + c0 * ld, ld, src, cols, r0, nr, c0, nc);
        }
    }
}

/* t's values zero. */
static void fill_zero(tf__weights *w, const tf__tensor *t)
{
    const size_t ld = t->transposed_ld, cols = ld ? (size_t)t->dims[1] : 1;
    const size_t run = ld ? (size_t)t->dims[0] : t->count; /* contiguous values */
    for (size_t c = 0; c < cols; c++)
        memset(w->block + t->offset + c * ld, 0, run * sizeof *w->block);
}

/* Exchanges the first n of t's values, counted on past its end
 * (tf__tensor_at), with the n after them, in place: gate | up -> up | gate. */
static void swap_halves(tf__weights *w, const tf__tensor *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float *a = w->block + tf__tensor_at(t, i), *b = w->block + tf__tensor_at(t, n + i);
        const float first = *a;
        *a = *b;
        *b = first;
    }
}

void tf__checkpoint_fill(const tf__checkpoint *ck, tf__weights *w)
{
    for (size_t k = 0; k < w->n_tensors; k++)
        if (is_zero(ck, w->tensors[k].name))
            fill_zero(w, &w->tensors[k]);
    for (size_t i = 0; i < ck->file.n_tensors; i++) {
        const tf__mapping *m = &ck->map[i];
        if (!m->dest[0])
            continue;
        const tf__tensor *t = tf__weights_find(w, m->dest);
        fill_from(w, t, &ck->file.tensors[i]);
        if (m->swap_halves)
            swap_halves(w, t, ck->file.tensors[i].count / 2);
    }
}
