/* pipeline_images.h — an image pipeline's parts (pipeline_images.c): the
 * vision tower, its processor's settings and the classifier's activation,
 * loaded into a tf_pipeline of kind TF_PIPELINE_IMAGE_EMBEDDING or
 * TF_PIPELINE_IMAGE_CLASSIFIER. */
#ifndef TF_PIPELINE_IMAGES_H
#define TF_PIPELINE_IMAGES_H

#include "tfenc.h"

typedef struct tf__pipeline_images tf__pipeline_images;

/* The vision folder dir (its model in model_dir: tf__vision_folder_probe's)
 * into p: p->images, p->kind, p->dim and a classifier's labels (p->arch);
 * for a whole CLIPModel or SiglipModel with a tokenizer in model_dir, its
 * text tower too (formats/text_tower_folder.h) with p->cfg its encoder's and
 * p->tok, p->probe, p->max_len. o->max_seq_length other than 0 is refused
 * without a text tower (images have no tokens). On
 * failure p keeps what it holds for tf_pipeline_destroy to free. */
tf_status tf__pipeline_images_load(tf_pipeline *p, const char *dir, const char *model_dir,
                                   const tf_pipeline_options *o);
void tf__pipeline_images_free(tf__pipeline_images *im); /* NULL is a no-op */

/* 1 when p is a whole CLIPModel's or SiglipModel's folder with its tokenizer:
 * tf_pipeline_embed runs its text tower (tf__pipeline_images_embed_texts). */
int tf__pipeline_images_has_text(const tf_pipeline *p);

/* tf_pipeline_embed on such a pipeline: texts into args.out [n, dim], CLIPModel's
 * get_text_features (text_projection of the end-of-text row, not normalised) or
 * SiglipModel's (the head on the last row); normalize 1: unit L2 norm. */
tf_status tf__pipeline_images_embed_texts(const tf_pipeline *p, const tf_pipeline_args *args);

#endif
