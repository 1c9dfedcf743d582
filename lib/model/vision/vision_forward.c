/* vision_forward.c — one call of a tower: its arguments checked, then
 *   pixels [B, C, H, W] -> embeddings [B, T, D] -> the encoder's layers
 *   (tf_encoder_forward on vectors) -> last_hidden_state [B, T, D] -> heads;
 * with a trace callback, the tower's own steps shown around the encoder's
 * (tfenc.h's "Tracing an image"). */
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "kernels.h"
#include "trace.h"
#include "vision_model.h"

/* The patch sizes and pixel values of a call fit the tower. */
static tf_status check_pixels(const tf__vision_config *c, const tf__vision_args *a)
{
    if (a->batch < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "vision: batch must be >= 1, got %d",
                        (int)a->batch);
    if (a->channels != c->channels)
        return tf__fail(TF_ERR_SHAPE, "pixel_values: %d channels, the model's num_channels is %d",
                        (int)a->channels, (int)c->channels);
    const struct {
        const char *name;
        int32_t v;
    } sides[2] = {{"height", a->height}, {"width", a->width}};
    for (int i = 0; i < 2; i++)
        if (sides[i].v < c->patch_size || sides[i].v % c->patch_size)
            return tf__fail(TF_ERR_SHAPE,
                            "pixel_values: %s %d is not a positive multiple of patch_size %d",
                            sides[i].name, (int)sides[i].v, (int)c->patch_size);
    if (!a->interpolate_pos_encoding && (a->height != c->image_size || a->width != c->image_size))
        return tf__fail(TF_ERR_SHAPE,
                        "pixel_values: input image size (%d*%d) doesn't match model (%d*%d); "
                        "interpolate_pos_encoding resizes the positions to it",
                        (int)a->height, (int)a->width, (int)c->image_size, (int)c->image_size);
    if (!a->pixel_values)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "vision: pixel_values is NULL");
    const size_t HW = (size_t)a->height * (size_t)a->width;
    const size_t n = (size_t)a->batch * (size_t)a->channels * HW;
    const size_t bad = tf__first_nonfinite(a->pixel_values, n);
    if (bad < n)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "pixel_values[%zu, %zu, %zu, %zu] is %g; pixels must be finite",
                        bad / (HW * (size_t)a->channels), bad / HW % (size_t)a->channels,
                        bad % HW / (size_t)a->width, bad % (size_t)a->width,
                        (double)a->pixel_values[bad]);
    return TF_OK;
}

/* Each output asked for is one the tower has. */
static tf_status check_outputs(const tf__vision_config *c, const tf__vision_args *a)
{
    const char *family = tf__vision_family_name(c->family);
    if (a->logits && !c->n_labels)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "logits: this %s tower has no classifier", family);
    if (a->image_embeds && !c->projection_dim)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "image_embeds: this %s tower has no visual_projection", family);
    if (a->pooled_output && !(c->pooler || c->post_norm || c->attention_pool))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "pooled_output: this %s tower has no pooler (nor pooling head)", family);
    return TF_OK;
}

/* The sizes of a call, checked against size_t and int (the BLAS's). */
typedef struct call_sizes {
    size_t P, T, K, D;
    size_t embed_floats, hidden_floats, head_floats, trace_floats, total;
} call_sizes;

/* SigLIP's head runs and its probe's attention is traced. */
static int traces_pool(const tf__vision_config *c, const tf__vision_args *a)
{
    return a->trace && c->attention_pool && a->pooled_output;
}

static tf_status size_call(call_sizes *z, const tf__vision_config *c, const tf__vision_args *a)
{
    const size_t B = (size_t)a->batch, p = (size_t)c->patch_size;
    z->P = ((size_t)a->height / p) * ((size_t)a->width / p);
    z->T = z->P + (c->class_token ? 1 : 0);
    z->K = (size_t)c->channels * p * p;
    z->D = (size_t)c->d_model;
    const size_t widest = z->K > z->D ? z->K : z->D;
    if (z->T > (size_t)INT32_MAX / B || B * z->T > SIZE_MAX / 4 / widest / sizeof(float))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "vision: %d images of %zu tokens (%d x %d pixels) are too many for one "
                        "call",
                        (int)a->batch, z->T, (int)a->height, (int)a->width);
    /* cols (B P, K), patches (B P, D), positions (P, D), embeds (B, T, D) */
    z->embed_floats = B * z->P * z->K + B * z->P * z->D + z->P * z->D + B * z->T * z->D;
    z->hidden_floats = a->last_hidden_state ? 0 : B * z->T * z->D;
    z->head_floats = tf__vision_head_floats(c, a->batch, (int32_t)z->T);
    /* traced: the positions added (T, D), the head's attention (B, H, T) */
    z->trace_floats = a->trace ? z->T * z->D : 0;
    z->trace_floats += traces_pool(c, a) ? B * (size_t)c->n_heads * z->T : 0;
    z->total = z->embed_floats + z->hidden_floats + z->head_floats + z->trace_floats;
    return TF_OK;
}

/* The tower's steps before the encoder as trace events: pixel_values, the
 * patch embeddings, the class token, the positions added (gathered into
 * positions (T, D)). */
static void trace_embedding(tf__tracer *tr, const tf__vision_model *m, const tf__vision_args *a,
                            const call_sizes *z, const tf__vision_embed_scratch *x,
                            float *positions)
{
    const tf__vision_config *c = &m->cfg;
    const int64_t B = a->batch, P = (int64_t)z->P, T = (int64_t)z->T, D = (int64_t)z->D;
    const int64_t pixels[4] = {B, a->channels, a->height, a->width};
    tf__trace_emit(tr, "pixel_values", -1, 4, pixels, "B,C,H,W", a->pixel_values);
    const int64_t patches[3] = {B, P, D};
    tf__trace_emit(tr, "embed.patches", -1, 3, patches, "B,P,D", x->patches);
    const size_t cls = c->class_token ? 1 : 0;
    const float *table = tf__vision_view(m, TF_VISION_POSITION); /* (cls + g g, D) */
    if (cls)
        tf__trace_emit(tr, "embed.class_token", -1, 1, &D, "D",
                       tf__vision_view(m, TF_VISION_CLASS_TOKEN));
    const int32_t g = c->image_size / c->patch_size; /* the trained grid, g x g */
    const int interpolated = a->height / c->patch_size != g || a->width / c->patch_size != g;
    memcpy(positions, table, cls * z->D * sizeof *positions);
    memcpy(positions + cls * z->D, interpolated ? x->positions : table + cls * z->D,
           z->P * z->D * sizeof *positions);
    const int64_t rows[2] = {T, D};
    tf__trace_emit(tr, "embed.position", -1, 2, rows, "T,D", positions);
}

tf_status tf__vision_forward(const tf__vision_model *m, const tf__vision_args *a)
{
    if (!m || !a)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "vision: %s is NULL", m ? "args" : "model");
    const tf__vision_config *c = &m->cfg;
    call_sizes z = {0};
    tf_status s = check_pixels(c, a);
    if (!s)
        s = check_outputs(c, a);
    if (!s)
        s = size_call(&z, c, a);
    if (s)
        return s;
    float *mem = tf__malloc(z.total * sizeof *mem);
    if (!mem)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "vision: cannot allocate %zu floats of scratch",
                        z.total);
    const size_t B = (size_t)a->batch;
    const tf__vision_embed_scratch x = {
        .cols = mem, .patches = mem + B * z.P * z.K, .positions = mem + B * z.P * (z.K + z.D)};
    float *embeds = x.positions + z.P * z.D; /* [B, T, D] */
    float *hidden = a->last_hidden_state ? a->last_hidden_state : embeds + B * z.T * z.D;
    float *head_scratch = mem + z.embed_floats + z.hidden_floats;
    float *trace_positions = head_scratch + z.head_floats; /* (T, D) when tracing */
    float *pool_weights = traces_pool(c, a) ? trace_positions + z.T * z.D : NULL; /* (B, H, T) */
    tf__tracer tr = {.fn = a->trace, .user_data = a->trace_user_data};

    tf__schedule sched;
    tf__schedule_begin(&sched, a->n_threads);
    tf__vision_embed(&sched, embeds, &x, m, a->pixel_values, a->batch, a->height, a->width);
    tf__schedule_end(&sched);
    if (tf__tracing(&tr))
        trace_embedding(&tr, m, a, &z, &x, trace_positions);

    tf_forward_args e;
    tf_forward_args_init(&e);
    e.batch = a->batch;
    e.seq_len = (int32_t)z.T;
    e.input_embeds = embeds;
    e.output = hidden;
    e.hidden_states = a->hidden_states;
    e.attentions = a->attentions;
    e.pooled_output = c->pooler ? a->pooled_output : NULL;
    e.trace = a->trace;
    e.trace_user_data = a->trace_user_data;
    e.n_threads = a->n_threads;
    s = tf_encoder_forward(m->encoder, &e);
    if (!s) {
        tf__schedule_begin(&sched, a->n_threads); /* the BLAS held as in every call */
        tf__vision_heads(m, a, hidden, (int32_t)z.T, pool_weights, head_scratch);
        tf__schedule_end(&sched);
    }
    if (!s && pool_weights) {
        const int64_t dims[4] = {a->batch, c->n_heads, 1, (int64_t)z.T};
        tf__trace_emit(&tr, "head.attn.weights", -1, 4, dims, "B,H,1,T", pool_weights);
    }
    tf__free(mem);
    return s;
}
