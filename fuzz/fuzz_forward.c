/* fuzz_forward.c — forward-argument validation on arbitrary bytes: the
 * bytes choose the batch, length, flags, which inputs and outputs are given
 * and every id, type, length, mask value and vector (NaN and infinities
 * included). Buffers are exactly the size the arguments declare, so any
 * read the validation should have prevented is an ASan report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfenc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { D = 8, MAX_B = 4, MAX_T = 20 };

static tf_encoder *model(int with_vocab)
{
    static tf_encoder *models[2];
    if (!models[with_vocab]) {
        tf_config c;
        tf_config_init(&c);
        c.d_model = D, c.n_heads = 2, c.d_ff = 8, c.n_layers = 2, c.pooler = 1;
        if (with_vocab)
            c.vocab_size = 20, c.position = TF_POSITION_LEARNED, c.max_positions = 16,
            c.n_token_types = 2;
        tf_encoder_create(&c, &models[with_vocab]);
    }
    return models[with_vocab];
}

/* Bytes as a stream of values; zeros when they run out. */
typedef struct stream {
    const uint8_t *p;
    size_t n;
} stream;

static uint8_t byte(stream *s)
{
    if (!s->n)
        return 0;
    s->n--;
    return *s->p++;
}

static int32_t value(stream *s) /* small values mostly, anything sometimes */
{
    const uint8_t b = byte(s);
    if (b < 240)
        return (int32_t)(b % 24) - 2;
    int32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = (int32_t)((uint32_t)v << 8 | byte(s));
    return v;
}

static float number(stream *s)
{
    static const float special[] = {0.0f, 1e30f, -1e30f};
    const uint8_t b = byte(s);
    if (b == 255)
        return __builtin_nanf("");
    if (b == 254 || b == 253)
        return b == 254 ? __builtin_inff() : -__builtin_inff();
    if (b >= 250)
        return special[b - 250];
    return (float)b / 32.0f - 4.0f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stream s = {data, size};
    const uint8_t flags = byte(&s), shape = byte(&s);
    const int with_vocab = flags & 1;
    tf_encoder *enc = model(with_vocab);
    const int32_t B = 1 + (shape & 3), T = 1 + (shape >> 2) % MAX_T;
    int32_t ids[MAX_B * MAX_T], types[MAX_B * MAX_T], mask[MAX_B * MAX_T], lengths[MAX_B];
    static float x[MAX_B * MAX_T * D], add[MAX_B * MAX_T * MAX_T], out[MAX_B * MAX_T * D];
    static float hidden[3 * MAX_B * MAX_T * D], attn[2 * MAX_B * 2 * MAX_T * MAX_T],
        pooled[MAX_B * D];
    for (int i = 0; i < B * T; i++)
        ids[i] = value(&s), types[i] = value(&s) & 3, mask[i] = value(&s) & 1;
    for (int b = 0; b < B; b++)
        lengths[b] = value(&s);
    for (int i = 0; i < B * T * D; i++)
        x[i] = number(&s);
    for (int i = 0; i < B * T * T; i++)
        add[i] = byte(&s) == 7 ? -__builtin_inff() : number(&s);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = flags & 0x80 ? value(&s) : B; /* sometimes a wrong size */
    a.seq_len = flags & 0x80 ? value(&s) : T;
    if (a.batch > B || a.seq_len > T) /* never larger than the buffers */
        a.batch = B, a.seq_len = T;
    a.input_ids = flags & 2 ? ids : NULL;
    a.input_embeds = flags & 4 ? x : NULL;
    a.token_type_ids = flags & 8 ? types : NULL;
    a.lengths = flags & 16 ? lengths : NULL;
    a.attention_mask = flags & 32 ? mask : NULL;
    a.causal = flags & 64 ? value(&s) & 1 : 0;
    const uint8_t more = byte(&s);
    a.additive_mask = more & 1 ? add : NULL;
    a.additive_mask_batched = more & 2 ? 1 : 0;
    a.output = more & 4 ? NULL : out;
    a.hidden_states = more & 8 ? hidden : NULL;
    a.attentions = more & 16 ? attn : NULL;
    a.pooled_output = more & 32 ? pooled : NULL;
    tf_encoder_forward(enc, &a);
    return 0;
}
