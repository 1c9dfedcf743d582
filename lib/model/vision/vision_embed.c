/* vision_embed.c — from pixels to the first hidden state, as
 * ViTEmbeddings.forward / ViTPatchEmbeddings, CLIPVisionEmbeddings.forward
 * and SiglipVisionEmbeddings.forward compute it: the Conv2d with stride =
 * kernel = p as im2col + one product, the class token, the learned
 * positions (interpolate_pos_encoding's bicubic resize of them to another
 * grid). */
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "linear.h"
#include "vision_model.h"

/* Rows of cols for images [first, first + count) of a batch. */
typedef struct im2col_job {
    float *cols;         /* (B P, K) */
    const float *pixels; /* [B, C, H, W] */
    int32_t C, H, W, p;
} im2col_job;

/* cols[b P + gy gw + gx, (c p + ky) p + kx] = pixels[b, c, gy p + ky, gx p + kx]:
 * row r is patch r's values in the order of the Conv2d weight (D, C, p, p). */
static void im2col_task(void *ctx, size_t first, size_t count)
{
    const im2col_job *j = ctx;
    const size_t p = (size_t)j->p, C = (size_t)j->C, H = (size_t)j->H, W = (size_t)j->W;
    const size_t gh = H / p, gw = W / p, P = gh * gw, K = C * p * p;
    for (size_t b = first; b < first + count; b++)
        for (size_t gy = 0; gy < gh; gy++)
            for (size_t gx = 0; gx < gw; gx++) {
                float *row = j->cols + (b * P + gy * gw + gx) * K; /* (K) */
                for (size_t c = 0; c < C; c++)
                    for (size_t ky = 0; ky < p; ky++) {
                        const float *src = j->pixels + ((b * C + c) * H + gy * p + ky) * W + gx * p;
                        memcpy(row + (c * p + ky) * p, src, p * sizeof *row);
                    }
            }
}

/* torch's cubic convolution weights of the 4 samples around t in [0, 1)
 * (get_cubic_upsample_coefficients, A = -0.75). */
static void cubic_weights(double w[4], double t)
{
    const double A = -0.75;
    const double x1 = t, x2 = 1.0 - t;
    w[0] = ((A * (x1 + 1.0) - 5.0 * A) * (x1 + 1.0) + 8.0 * A) * (x1 + 1.0) - 4.0 * A;
    w[1] = ((A + 2.0) * x1 - (A + 3.0)) * x1 * x1 + 1.0;
    w[2] = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0;
    w[3] = ((A * (x2 + 1.0) - 5.0 * A) * (x2 + 1.0) + 8.0 * A) * (x2 + 1.0) - 4.0 * A;
}

/* For output index o of n_out from n_in samples: the first of the 4 source
 * indices (before clamping) and their weights, as upsample_bicubic2d with
 * align_corners=False and an output size computes them: source (o + 0.5)
 * n_in / n_out - 0.5, not clamped at 0 (area_pixel_compute_source_index,
 * cubic). */
static int32_t cubic_source(double w[4], int32_t o, int32_t n_in, int32_t n_out)
{
    const double real = ((double)o + 0.5) * ((double)n_in / (double)n_out) - 0.5;
    const double at = floor(real);
    cubic_weights(w, real - at);
    return (int32_t)at - 1;
}

static int32_t clamp_index(int32_t i, int32_t n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

void tf__vision_interpolate_positions(float *pos, const float *trained, int32_t g, int32_t gh,
                                      int32_t gw, int32_t D)
{
    for (int32_t oy = 0; oy < gh; oy++) {
        double wy[4];
        const int32_t y0 = cubic_source(wy, oy, g, gh);
        for (int32_t ox = 0; ox < gw; ox++) {
            double wx[4];
            const int32_t x0 = cubic_source(wx, ox, g, gw);
            float *out = pos + ((size_t)oy * (size_t)gw + (size_t)ox) * (size_t)D; /* (D) */
            for (int32_t d = 0; d < D; d++) {
                double v = 0.0;
                for (int i = 0; i < 4; i++) {
                    const size_t y = (size_t)clamp_index(y0 + i, g);
                    double row = 0.0; /* along x first, as cubic_interp1d does */
                    for (int k = 0; k < 4; k++) {
                        const size_t x = (size_t)clamp_index(x0 + k, g);
                        row += wx[k] * trained[(y * (size_t)g + x) * (size_t)D + (size_t)d];
                    }
                    v += wy[i] * row;
                }
                out[d] = (float)v;
            }
        }
    }
}

void tf__vision_embed(const tf__schedule *s, float *embeds, const tf__vision_embed_scratch *x,
                      const tf__vision_model *m, const float *pixels, int32_t B, int32_t height,
                      int32_t width)
{
    const tf__vision_config *c = &m->cfg;
    const size_t D = (size_t)c->d_model, p = (size_t)c->patch_size;
    const size_t K = (size_t)c->channels * p * p;
    const int32_t g = c->image_size / c->patch_size, gh = height / c->patch_size,
                  gw = width / c->patch_size;
    const size_t P = (size_t)gh * (size_t)gw, cls = c->class_token ? 1 : 0, T = P + cls;

    const im2col_job job = {x->cols, pixels, c->channels, height, width, c->patch_size};
    tf__schedule_rows(s, im2col_task, (void *)&job, (size_t)B, P * K);
    /* patches (B P, D) = cols (B P, K) . W^T (K, D) + b */
    tf__linear_split(s, x->patches, x->cols, tf__vision_view(m, TF_VISION_PATCH_WEIGHT),
                     tf__vision_view(m, TF_VISION_PATCH_BIAS), (size_t)B * P, D, K,
                     TF_LINEAR_NO_ACTIVATION);

    const float *position = tf__vision_view(m, TF_VISION_POSITION); /* (cls + g g, D) */
    const float *patch_positions = position + cls * D;              /* (P, D) */
    if (gh != g || gw != g) {
        tf__vision_interpolate_positions(x->positions, patch_positions, g, gh, gw, c->d_model);
        patch_positions = x->positions;
    }
    const float *class_token = tf__vision_view(m, TF_VISION_CLASS_TOKEN); /* (D) */
    for (size_t b = 0; b < (size_t)B; b++) {
        float *e = embeds + b * T * D; /* (T, D) */
        if (cls) {
            memcpy(e, class_token, D * sizeof *e);
            tf__add(e, position, D);
        }
        memcpy(e + cls * D, x->patches + b * P * D, P * D * sizeof *e);
        tf__add(e + cls * D, patch_positions, P * D);
    }
}
