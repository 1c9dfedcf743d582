/* metadata.c — tf_config <-> __metadata__ strings, from one table. */
#include "metadata.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "utf8.h"

typedef enum field_kind {
    F_INT,
    F_BOOL,
    F_POSITION,
    F_ACTIVATION,
    F_NORM_FIRST,
    F_EPS,
    F_SEED,
    F_FLOAT /* a finite float32 (tf__config_validate checks its range) */
} field_kind;

/* Fields 0.4.0 added may be absent (files 0.3.0 wrote): they keep 0, their
 * default. */
#define SINCE_0_4 1
#define SINCE_0_1 0

static const struct field {
    const char *key;
    field_kind kind;
    size_t offset; /* in tf_config */
    int override;  /* also read from PyTorch checkpoints */
    int32_t lo;    /* F_INT: the smallest value (0 for n_heads would read as "unknown") */
    int optional;  /* SINCE_0_4: may be absent (SINCE_0_1: must be there) */
} fields[] = {
    {"d_model", F_INT, offsetof(tf_config, d_model), 0, 1, SINCE_0_1},
    {"n_heads", F_INT, offsetof(tf_config, n_heads), 1, 1, SINCE_0_1},
    {"d_ff", F_INT, offsetof(tf_config, d_ff), 0, 1, SINCE_0_1},
    {"n_layers", F_INT, offsetof(tf_config, n_layers), 0, 1, SINCE_0_1},
    {"vocab_size", F_INT, offsetof(tf_config, vocab_size), 0, 0, SINCE_0_1},
    {"max_positions", F_INT, offsetof(tf_config, max_positions), 0, 0, SINCE_0_1},
    {"position", F_POSITION, offsetof(tf_config, position), 0, 0, SINCE_0_1},
    {"n_token_types", F_INT, offsetof(tf_config, n_token_types), 0, 0, SINCE_0_1},
    {"embedding_norm", F_BOOL, offsetof(tf_config, embedding_norm), 0, 0, SINCE_0_1},
    {"norm_first", F_NORM_FIRST, offsetof(tf_config, norm_placement), 1, 0, SINCE_0_1},
    {"final_norm", F_BOOL, offsetof(tf_config, final_norm), 0, 0, SINCE_0_1},
    {"activation", F_ACTIVATION, offsetof(tf_config, activation), 1, 0, SINCE_0_1},
    {"bias", F_BOOL, offsetof(tf_config, bias), 0, 0, SINCE_0_1},
    {"pooler", F_BOOL, offsetof(tf_config, pooler), 0, 0, SINCE_0_1},
    {"layer_norm_eps", F_EPS, offsetof(tf_config, layer_norm_eps), 1, 0, SINCE_0_1},
    {"seed", F_SEED, offsetof(tf_config, seed), 0, 0, SINCE_0_1},
    {"position_offset", F_INT, offsetof(tf_config, position_offset), 0, 0, SINCE_0_4},
    {"ffn_gated", F_BOOL, offsetof(tf_config, ffn_gated), 0, 0, SINCE_0_4},
    {"norm_bias", F_BOOL, offsetof(tf_config, norm_bias), 0, 0, SINCE_0_4},
    {"skip_first_norm1", F_BOOL, offsetof(tf_config, skip_first_norm1), 0, 0, SINCE_0_4},
    {"rotary_dim", F_INT, offsetof(tf_config, rotary_dim), 0, 0, SINCE_0_4},
    {"rotary_interleaved", F_BOOL, offsetof(tf_config, rotary_interleaved), 0, 0, SINCE_0_4},
    {"rotary_base", F_FLOAT, offsetof(tf_config, rotary_base), 0, 0, SINCE_0_4},
    {"rotary_base_local", F_FLOAT, offsetof(tf_config, rotary_base_local), 0, 0, SINCE_0_4},
    {"rotary_ntk_factor", F_FLOAT, offsetof(tf_config, rotary_ntk_factor), 0, 0, SINCE_0_4},
    {"rotary_ntk_positions", F_INT, offsetof(tf_config, rotary_ntk_positions), 0, 0, SINCE_0_4},
    {"attn_window", F_INT, offsetof(tf_config, attn_window), 0, 0, SINCE_0_4},
    {"global_every", F_INT, offsetof(tf_config, global_every), 0, 0, SINCE_0_4},
    {"rotary_linear_factor", F_FLOAT, offsetof(tf_config, rotary_linear_factor), 0, 0, SINCE_0_4},
    {"relative_buckets", F_INT, offsetof(tf_config, relative_buckets), 0, 0, SINCE_0_4},
    {"relative_max_distance", F_INT, offsetof(tf_config, relative_max_distance), 0, 0, SINCE_0_4},
    {"embedding_dim", F_INT, offsetof(tf_config, embedding_dim), 0, 0, SINCE_0_4},
    {"qk_norm", F_BOOL, offsetof(tf_config, qk_norm), 0, 0, SINCE_0_4},
    {"add_norm1b", F_BOOL, offsetof(tf_config, add_norm1b), 0, 0, SINCE_0_4},
};
enum { N_FIELDS = sizeof fields / sizeof fields[0] };
_Static_assert(N_FIELDS + 2 == TF_METADATA_FIELDS,
               "a slot for every field, format and version, "
               "each filled (save.c writes them all)");

static const char *const booleans[] = {"false", "true"};

static int32_t *int_at(tf_config *c, const struct field *f)
{
    return (int32_t *)(void *)((char *)c + f->offset);
}

static float *float_at(tf_config *c, const struct field *f)
{
    return (float *)(void *)((char *)c + f->offset);
}

void tf__metadata_from_config(const tf_config *c, const char *keys[TF_METADATA_FIELDS],
                              char values[TF_METADATA_FIELDS][TF_METADATA_VALUE_MAX])
{
    tf_config copy = *c;
    keys[0] = "format";
    snprintf(values[0], TF_METADATA_VALUE_MAX, "%s", TF_METADATA_FORMAT);
    keys[1] = "format_version";
    snprintf(values[1], TF_METADATA_VALUE_MAX, "1");
    for (size_t i = 0; i < N_FIELDS; i++) {
        const struct field *f = &fields[i];
        const int is_int = f->kind != F_EPS && f->kind != F_SEED && f->kind != F_FLOAT;
        const int32_t v = is_int ? *int_at(&copy, f) : 0;
        char *out = values[i + 2];
        keys[i + 2] = f->key;
        switch (f->kind) {
        case F_INT:
            snprintf(out, TF_METADATA_VALUE_MAX, "%d", (int)v);
            break;
        case F_BOOL:
            snprintf(out, TF_METADATA_VALUE_MAX, "%s", booleans[v != 0]);
            break;
        case F_NORM_FIRST:
            snprintf(out, TF_METADATA_VALUE_MAX, "%s", booleans[v == TF_NORM_PRE]);
            break;
        case F_POSITION:
            snprintf(out, TF_METADATA_VALUE_MAX, "%s", tf_position_name(v));
            break;
        case F_ACTIVATION:
            snprintf(out, TF_METADATA_VALUE_MAX, "%s", tf_activation_name(v));
            break;
        case F_EPS:
            snprintf(out, TF_METADATA_VALUE_MAX, "%.9g", (double)c->layer_norm_eps);
            break;
        case F_SEED:
            snprintf(out, TF_METADATA_VALUE_MAX, "%llu", (unsigned long long)c->seed);
            break;
        case F_FLOAT:
            snprintf(out, TF_METADATA_VALUE_MAX, "%.9g", (double)*float_at(&copy, f));
            break;
        }
    }
}

static int index_of(const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

/* Parses one field's text into c. */
static tf_status parse_field(const struct field *f, const char *text, tf_config *c)
{
    char *end = NULL;
    int ok = 1;
    errno = 0;
    switch (f->kind) {
    case F_INT: {
        const long v = strtol(text, &end, 10);
        ok = *text && !*end && !errno && v >= f->lo && v <= INT32_MAX;
        if (ok)
            *int_at(c, f) = (int32_t)v;
        break;
    }
    case F_BOOL:
    case F_NORM_FIRST: {
        const int v = index_of(text, booleans, 2);
        ok = v >= 0;
        if (ok)
            *int_at(c, f) = f->kind == F_BOOL ? v : (v ? TF_NORM_PRE : TF_NORM_POST);
        break;
    }
    case F_POSITION:
    case F_ACTIVATION: {
        const int32_t v = f->kind == F_POSITION ? tf_position_from_name(text)
                                                : tf_activation_from_name(text);
        ok = v >= 0;
        if (ok)
            *int_at(c, f) = v;
        break;
    }
    case F_EPS: {
        const double v = strtod(text, &end);
        ok = *text && !*end && !errno;
        if (ok && !(isfinite((float)v) && (float)v > 0.0f))
            return tf__fail(TF_ERR_FORMAT,
                            "__metadata__ \"%s\": '%.*s' is %g as a float32, the "
                            "precision LayerNorm runs in; it must be finite and > 0",
                            f->key, tf__utf8_prefix(text, 40), text, (double)(float)v);
        if (ok)
            c->layer_norm_eps = (float)v;
        break;
    }
    case F_FLOAT: {
        const double v = strtod(text, &end);
        ok = *text && !*end && !errno && isfinite((float)v);
        if (ok)
            *float_at(c, f) = (float)v;
        break;
    }
    case F_SEED: {
        const unsigned long long v = strtoull(text, &end, 10);
        ok = *text && *text != '-' && !*end && !errno;
        if (ok)
            c->seed = v;
        break;
    }
    }
    if (!ok && f->kind == F_INT)
        return tf__fail(TF_ERR_FORMAT,
                        "__metadata__ \"%s\": cannot read '%.*s' as an integer in "
                        "%d..%d",
                        f->key, tf__utf8_prefix(text, 40), text, (int)f->lo, INT32_MAX);
    if (!ok)
        return tf__fail(
            TF_ERR_FORMAT, "__metadata__ \"%s\": cannot read '%.*s' as a %s", f->key,
            tf__utf8_prefix(text, 40), text,
            f->kind == F_BOOL || f->kind == F_NORM_FIRST ? "boolean (true/false)"
                : f->kind == F_POSITION   ? "position (none/sinusoidal/learned/rotary/alibi)"
                : f->kind == F_ACTIVATION ? "activation (gelu/gelu_tanh/relu/silu/quick_gelu)"
                : f->kind == F_EPS        ? "number"
                : f->kind == F_FLOAT      ? "finite float32"
                                          : "64-bit unsigned integer");
    return TF_OK;
}

tf_status tf__metadata_read_config(const tf__st_file *file, tf_config *c)
{
    const char *version = tf__st_metadata(file, "format_version");
    if (!version || strcmp(version, "1") != 0)
        return tf__fail(TF_ERR_UNSUPPORTED,
                        "__metadata__ \"format_version\" is %s%s%s; this "
                        "library reads version 1",
                        version ? "'" : "", version ? version : "missing", version ? "'" : "");
    for (size_t i = 0; i < N_FIELDS; i++) {
        const char *text = tf__st_metadata(file, fields[i].key);
        if (!text && fields[i].optional)
            continue;
        if (!text)
            return tf__fail(TF_ERR_FORMAT, "__metadata__ lacks \"%s\"", fields[i].key);
        tf_status s = parse_field(&fields[i], text, c);
        if (s)
            return s;
    }
    return TF_OK;
}

tf_status tf__metadata_read_overrides(const tf__st_file *file, tf_config *c)
{
    for (size_t i = 0; i < N_FIELDS; i++) {
        const char *text = fields[i].override ? tf__st_metadata(file, fields[i].key) : NULL;
        tf_status s = text ? parse_field(&fields[i], text, c) : TF_OK;
        if (s)
            return s;
    }
    return TF_OK;
}
