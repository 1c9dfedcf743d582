/* spiece_model.c — the fields of a SentencePiece ModelProto (spiece_model.h)
 * read from protobuf's wire format (protobuf.dev/programming-guides/
 * encoding): each field a varint tag (number << 3 | wire type), then a
 * varint (0), 8 bytes (1), a varint length and that many bytes (2: strings,
 * bytes, messages) or 4 bytes (5: float). Every length is checked against
 * the message holding it before it is read; groups (wire types 3, 4), which
 * the format has not used for years, are refused. A field given twice takes
 * its last value, a message given twice is merged, as protobuf parses them. */
#include "spiece_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "utf8.h"
#include "vocab.h"

#define TF_WIRE_VARINT 0
#define TF_WIRE_FIXED64 1
#define TF_WIRE_LENGTH 2
#define TF_WIRE_FIXED32 5
#define TF_PLACE 48 /* bytes of a field's name in messages: "pieces[16777215].score" */

/* The names of a message's fields read here, by number (NULL: not read). */
typedef struct field_names {
    const char *const *name; /* [n] */
    uint32_t n;
} field_names;

static const char *const model_fields[] = {NULL, "pieces", "trainer_spec", "normalizer_spec"};
static const char *const piece_fields[] = {NULL, "piece", "score", "type"};
static const char *const normalizer_fields[] = {NULL,
                                                "name",
                                                "precompiled_charsmap",
                                                "add_dummy_prefix",
                                                "remove_extra_whitespaces",
                                                "escape_whitespaces"};
static const field_names model_names = {model_fields, 4}, piece_names = {piece_fields, 4},
                         normalizer_names = {normalizer_fields, 6}, no_names = {NULL, 0};

/* A message being read: data[at..end) of the file data, named `place`. */
typedef struct wire {
    const unsigned char *data;
    size_t at, end;
    const char *what;  /* the file */
    const char *place; /* the message: "", "pieces[3]", "trainer_spec" */
    field_names names;
} wire;

/* Field number's name into buf[32]: its name, else "field <number>". */
static const char *name_of(const wire *w, uint32_t number, char *buf)
{
    if (number < w->names.n && w->names.name[number])
        return w->names.name[number];
    snprintf(buf, 32, "field %u", (unsigned)number);
    return buf;
}

/* A field just read: its number and wire type, its value (varint and
 * fixed) or its bytes data[at..at + len) (wire type 2), where its tag is. */
typedef struct field {
    uint32_t number, wire_type;
    uint64_t value;
    size_t at, len, tag_at;
} field;

/* TF_ERR_FORMAT "<file>: <message>.<name>: <why> (at byte <offset>)". */
static tf_status bad(const wire *w, const char *name, size_t offset, const char *why)
{
    const char *dot = w->place[0] && name[0] ? "." : "";
    const char *colon = w->place[0] || name[0] ? ": " : "";
    return tf__fail(TF_ERR_FORMAT, "%s: %s%s%s%s%s (at byte %zu)", w->what, w->place, dot, name,
                    colon, why, offset);
}

/* A varint at data[*at..end): 1, or 0 when it runs past end or over 10 bytes. */
static int read_varint(const unsigned char *data, size_t *at, size_t end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && *at < end; shift += 7) {
        const unsigned char b = data[(*at)++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return 0;
}

/* The next field of w into *f; *more 0 at the message's end. */
static tf_status next_field(wire *w, field *f, int *more)
{
    *more = w->at < w->end;
    if (!*more)
        return TF_OK;
    uint64_t tag = 0;
    f->tag_at = w->at;
    if (!read_varint(w->data, &w->at, w->end, &tag))
        return bad(w, "", f->tag_at, "a field's tag runs past the end of its message");
    f->number = (uint32_t)(tag >> 3);
    f->wire_type = (uint32_t)(tag & 7);
    if (tag >> 3 == 0 || tag >> 3 > (1u << 29) - 1)
        return bad(w, "", f->tag_at, "a field number outside 1..536870911");
    const size_t left = w->end - w->at;
    switch (f->wire_type) {
    case TF_WIRE_VARINT:
        if (!read_varint(w->data, &w->at, w->end, &f->value))
            return bad(w, "", f->tag_at, "a varint runs past the end of its message");
        return TF_OK;
    case TF_WIRE_FIXED64:
    case TF_WIRE_FIXED32: {
        const size_t n = f->wire_type == TF_WIRE_FIXED64 ? 8 : 4;
        if (left < n)
            return bad(w, "", f->tag_at, "a fixed-size value runs past the end of its message");
        f->value = 0;
        for (size_t k = 0; k < n; k++) /* little-endian */
            f->value |= (uint64_t)w->data[w->at + k] << (8 * k);
        w->at += n;
        return TF_OK;
    }
    case TF_WIRE_LENGTH: {
        uint64_t len = 0;
        if (!read_varint(w->data, &w->at, w->end, &len))
            return bad(w, "", f->tag_at, "a length runs past the end of its message");
        if (len > w->end - w->at) {
            char why[96], buf[32];
            snprintf(why, sizeof why, "length %llu runs past the end of its message",
                     (unsigned long long)len);
            return bad(w, name_of(w, f->number, buf), f->tag_at, why);
        }
        f->at = w->at, f->len = (size_t)len;
        w->at += (size_t)len;
        return TF_OK;
    }
    default: {
        char why[96], buf[32];
        snprintf(why, sizeof why, "wire type %u (%s) is not read", (unsigned)f->wire_type,
                 f->wire_type == 3 || f->wire_type == 4 ? "a group" : "none");
        return bad(w, name_of(w, f->number, buf), f->tag_at, why);
    }
    }
}

/* Field f, named name, has the wire type wanted. */
static tf_status expect(const wire *w, const field *f, const char *name, uint32_t wanted)
{
    static const char *const kinds[6] = {"a varint", "8 bytes", "a length", "", "", "4 bytes"};
    if (f->wire_type == wanted)
        return TF_OK;
    char why[96];
    snprintf(why, sizeof why, "expected wire type %u (%s), got %u", (unsigned)wanted, kinds[wanted],
             (unsigned)f->wire_type);
    return bad(w, name, f->tag_at, why);
}

/* The message in field f of w. */
static wire sub_message(const wire *w, const field *f, const char *place, field_names names)
{
    return (wire){w->data, f->at, f->at + f->len, w->what, place, names};
}

/* An int32 varint into *out: protobuf writes a negative one as 10 bytes. */
static tf_status int32_field(const wire *w, const field *f, const char *name, int32_t *out)
{
    tf_status s = expect(w, f, name, TF_WIRE_VARINT);
    const int64_t v = (int64_t)f->value;
    if (s == TF_OK && (v < INT32_MIN || v > INT32_MAX))
        s = bad(w, name, f->tag_at, "not an int32");
    if (s == TF_OK)
        *out = (int32_t)v;
    return s;
}

/* An enum varint in lo..hi into *out. */
static tf_status enum_field(const wire *w, const field *f, const char *name, int32_t lo, int32_t hi,
                            int32_t *out)
{
    tf_status s = int32_field(w, f, name, out);
    if (s == TF_OK && (*out < lo || *out > hi)) {
        char why[64];
        snprintf(why, sizeof why, "%d is not one of %d..%d", (int)*out, (int)lo, (int)hi);
        s = bad(w, name, f->tag_at, why);
    }
    return s;
}

static tf_status bool_field(const wire *w, const field *f, const char *name, int32_t *out)
{
    tf_status s = expect(w, f, name, TF_WIRE_VARINT);
    if (s == TF_OK)
        *out = f->value != 0;
    return s;
}

/* ---- The messages ------------------------------------------------------------- */

/* Piece k (SentencePiece): its text appended to m->text at *text_at. */
static tf_status read_piece(tf__spiece_model *m, const wire *parent, const field *pf, int32_t k,
                            size_t *text_at)
{
    char place[TF_PLACE];
    snprintf(place, sizeof place, "pieces[%d]", (int)k);
    wire w = sub_message(parent, pf, place, piece_names);
    field f = {0};
    int more = 1, has_piece = 0;
    m->type[k] = TF_SPIECE_NORMAL;
    m->score[k] = 0.0f;
    tf_status s = TF_OK;
    while (s == TF_OK && (s = next_field(&w, &f, &more)) == TF_OK && more) {
        if (f.number == 1 && (s = expect(&w, &f, "piece", TF_WIRE_LENGTH)) == TF_OK) {
            const char *piece = (const char *)w.data + f.at;
            if (f.len == 0 || memchr(piece, '\0', f.len) ||
                tf__utf8_invalid_at(piece, f.len) < f.len)
                s = bad(&w, "piece", f.tag_at, "expected a non-empty UTF-8 string without NUL");
            if (s == TF_OK) { /* the last one given is the piece; room: its message's length */
                m->piece_at[k] = *text_at;
                memcpy(m->text + *text_at, piece, f.len);
                m->text[*text_at + f.len] = '\0';
                has_piece = 1;
            }
        } else if (f.number == 2 && (s = expect(&w, &f, "score", TF_WIRE_FIXED32)) == TF_OK) {
            const uint32_t bits = (uint32_t)f.value;
            memcpy(&m->score[k], &bits, sizeof bits);
            if (!isfinite(m->score[k]))
                s = bad(&w, "score", f.tag_at, "not a finite number");
        } else if (f.number == 3) {
            s = enum_field(&w, &f, "type", TF_SPIECE_NORMAL, TF_SPIECE_BYTE, &m->type[k]);
        }
    }
    if (s == TF_OK && !has_piece)
        s = bad(&w, "piece", pf->tag_at, "missing");
    *text_at += pf->len + 1;
    return s;
}

static tf_status read_trainer(tf__spiece_model *m, const wire *parent, const field *pf)
{
    wire w = sub_message(parent, pf, "trainer_spec", no_names);
    field f = {0};
    int more = 1;
    tf_status s = TF_OK;
    while (s == TF_OK && (s = next_field(&w, &f, &more)) == TF_OK && more) {
        switch (f.number) {
        case 3:
            s = enum_field(&w, &f, "model_type", TF_SPIECE_UNIGRAM, TF_SPIECE_CHAR, &m->model_type);
            break;
        case 24:
            s = bool_field(&w, &f, "treat_whitespace_as_suffix", &m->treat_whitespace_as_suffix);
            break;
        case 35:
            s = bool_field(&w, &f, "byte_fallback", &m->byte_fallback);
            break;
        case 40:
            s = int32_field(&w, &f, "unk_id", &m->unk_id);
            break;
        case 41:
            s = int32_field(&w, &f, "bos_id", &m->bos_id);
            break;
        case 42:
            s = int32_field(&w, &f, "eos_id", &m->eos_id);
            break;
        case 43:
            s = int32_field(&w, &f, "pad_id", &m->pad_id);
            break;
        default:
            break;
        }
    }
    return s;
}

static tf_status read_normalizer(tf__spiece_model *m, const wire *parent, const field *pf)
{
    wire w = sub_message(parent, pf, "normalizer_spec", normalizer_names);
    field f = {0};
    int more = 1;
    tf_status s = TF_OK;
    while (s == TF_OK && (s = next_field(&w, &f, &more)) == TF_OK && more) {
        if (f.number == 1 && (s = expect(&w, &f, "name", TF_WIRE_LENGTH)) == TF_OK) {
            if (f.len >= TF_SPIECE_NAME || memchr(w.data + f.at, '\0', f.len))
                s = bad(&w, "name", f.tag_at, "expected a name of at most 63 bytes");
            else
                memcpy(m->normalizer_name, w.data + f.at, f.len), m->normalizer_name[f.len] = '\0';
        } else if (f.number == 2 &&
                   (s = expect(&w, &f, "precompiled_charsmap", TF_WIRE_LENGTH)) == TF_OK) {
            tf__free(m->charsmap);
            m->charsmap = f.len ? tf__malloc(f.len) : NULL;
            m->charsmap_len = f.len;
            if (f.len && !m->charsmap)
                s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of charsmap",
                             w.what, f.len);
            else if (f.len)
                memcpy(m->charsmap, w.data + f.at, f.len);
        } else if (f.number == 3) {
            s = bool_field(&w, &f, "add_dummy_prefix", &m->add_dummy_prefix);
        } else if (f.number == 4) {
            s = bool_field(&w, &f, "remove_extra_whitespaces", &m->remove_extra_whitespaces);
        } else if (f.number == 5) {
            s = bool_field(&w, &f, "escape_whitespaces", &m->escape_whitespaces);
        }
    }
    return s;
}

/* The pieces ModelProto has and the bytes their messages hold (a first pass
 * that checks every top-level length). */
static tf_status count_pieces(const wire *top, int32_t *n, size_t *bytes)
{
    wire w = *top;
    field f = {0};
    int more = 1;
    size_t count = 0;
    *bytes = 0;
    tf_status s = TF_OK;
    while (s == TF_OK && (s = next_field(&w, &f, &more)) == TF_OK && more)
        if (f.number == 1 && (s = expect(&w, &f, "pieces", TF_WIRE_LENGTH)) == TF_OK) {
            if (++count > TF_VOCAB_MAX_TOKENS)
                s = bad(&w, "pieces", f.tag_at, "more than 16777216 pieces");
            *bytes += f.len + 1;
        }
    if (s == TF_OK && count == 0)
        s = tf__fail(TF_ERR_FORMAT, "%s: pieces: none (not a SentencePiece model?)", top->what);
    *n = (int32_t)count;
    return s;
}

/* An id of trainer_spec in lo..n_pieces - 1. */
static tf_status check_id(const tf__spiece_model *m, const char *what, const char *name, int32_t id,
                          int32_t lo)
{
    if (id >= lo && id < m->n_pieces)
        return TF_OK;
    return tf__fail(TF_ERR_FORMAT, "%s: trainer_spec.%s: %d is outside %d..%d (the pieces' ids)",
                    what, name, (int)id, (int)lo, (int)m->n_pieces - 1);
}

tf_status tf__spiece_parse(tf__spiece_model *m, const unsigned char *data, size_t len,
                           const char *what)
{
    *m = (tf__spiece_model){.model_type = TF_SPIECE_UNIGRAM,
                            .unk_id = 0,
                            .bos_id = 1,
                            .eos_id = 2,
                            .pad_id = -1,
                            .add_dummy_prefix = 1,
                            .remove_extra_whitespaces = 1,
                            .escape_whitespaces = 1};
    const wire top = {data, 0, len, what, "", model_names};
    size_t bytes = 0;
    tf_status s = count_pieces(&top, &m->n_pieces, &bytes);
    if (s)
        return s;
    const size_t n = (size_t)m->n_pieces;
    m->text = tf__malloc(bytes);
    m->piece_at = tf__malloc(n * sizeof *m->piece_at);
    m->score = tf__malloc(n * sizeof *m->score);
    m->type = tf__malloc(n * sizeof *m->type);
    if (!m->text || !m->piece_at || !m->score || !m->type)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu pieces", what, n);
    wire w = top;
    field f = {0};
    int more = 1;
    int32_t k = 0;
    size_t text_at = 0;
    while (s == TF_OK && (s = next_field(&w, &f, &more)) == TF_OK && more) {
        if (f.number == 1)
            s = read_piece(m, &w, &f, k++, &text_at);
        else if (f.number == 2 && (s = expect(&w, &f, "trainer_spec", TF_WIRE_LENGTH)) == TF_OK)
            s = read_trainer(m, &w, &f);
        else if (f.number == 3 && (s = expect(&w, &f, "normalizer_spec", TF_WIRE_LENGTH)) == TF_OK)
            s = read_normalizer(m, &w, &f);
    }
    if (s == TF_OK)
        s = check_id(m, what, "unk_id", m->unk_id, 0);
    if (s == TF_OK)
        s = check_id(m, what, "bos_id", m->bos_id, -1);
    if (s == TF_OK)
        s = check_id(m, what, "eos_id", m->eos_id, -1);
    if (s == TF_OK)
        s = check_id(m, what, "pad_id", m->pad_id, -1);
    return s;
}

void tf__spiece_clear(tf__spiece_model *m)
{
    tf__free(m->text);
    tf__free(m->piece_at);
    tf__free(m->score);
    tf__free(m->type);
    tf__free(m->charsmap);
    *m = (tf__spiece_model){0};
}
