/* vision_forward.c — one call of a tower: its arguments checked, then
 *   pixels [B, C, H, W] -> embeddings [B, T, D] -> the encoder's layers
 *   (tf_encoder_forward on vectors) -> last_hidden_state [B, T, D] -> heads. */
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "kernels.h"
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
    size_t embed_floats, hidden_floats, head_floats, total;
} call_sizes;

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
    z->total = z->embed_floats + z->hidden_floats + z->head_floats;
    return TF_OK;
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

    tf__schedule sched;
    tf__schedule_begin(&sched, a->n_threads);
    tf__vision_embed(&sched, embeds, &x, m, a->pixel_values, a->batch, a->height, a->width);
    tf__schedule_end(&sched);

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
        tf__vision_heads(m, a, hidden, (int32_t)z.T, head_scratch);
        tf__schedule_end(&sched);
    }
    tf__free(mem);
    return s;
}
