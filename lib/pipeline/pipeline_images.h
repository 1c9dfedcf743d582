/* pipeline_images.h — an image pipeline's parts (pipeline_images.c): the
 * vision tower, its processor's settings and the classifier's activation,
 * loaded into a tf_pipeline of kind TF_PIPELINE_IMAGE_EMBEDDING or
 * TF_PIPELINE_IMAGE_CLASSIFIER. */
#ifndef TF_PIPELINE_IMAGES_H
#define TF_PIPELINE_IMAGES_H

#include "tfenc.h"

typedef struct tf__pipeline_images tf__pipeline_images;

/* The vision folder dir (its model in model_dir: tf__vision_folder_probe's)
 * into p: p->images, p->kind, p->dim and a classifier's labels (p->arch).
 * o->max_seq_length other than 0 is refused (images have no tokens). On
 * failure p keeps what it holds for tf_pipeline_destroy to free. */
tf_status tf__pipeline_images_load(tf_pipeline *p, const char *dir, const char *model_dir,
                                   const tf_pipeline_options *o);
void tf__pipeline_images_free(tf__pipeline_images *im); /* NULL is a no-op */

#endif
