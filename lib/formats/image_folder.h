/* image_folder.h — what an image pipeline reads from a vision folder beside
 * its tower (vision_folder.h): preprocessor_config.json (image/
 * image_config.h) and a classifier's labels (hf_arch.h). */
#ifndef TF_IMAGE_FOLDER_H
#define TF_IMAGE_FOLDER_H

#include "hf_arch.h"
#include "image/image_config.h"
#include "tfenc.h"

/* model_dir's preprocessor_config.json (tf__vision_folder_probe's
 * model_dir: a sentence-transformers folder's CLIPModel module) into *kind
 * and *pre; its absence is TF_ERR_IO naming the path. */
tf_status tf__image_folder_processor(const char *model_dir, tf__image_processor *kind,
                                     tf__image_preprocess *pre);

/* model_dir's config.json's id2label and problem_type into *arch
 * (tf__hf_arch_read_labels). */
tf_status tf__image_folder_labels(const char *model_dir, tf__hf_arch *arch);

#endif
