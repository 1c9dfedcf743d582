/* text_tower_folder.h — the text half of a CLIPModel or SiglipModel folder
 * (config.json's text_config, model.safetensors' text_model.*), as
 * transformers saves openai/clip-vit-base-patch32, google/siglip-base-patch16-224
 * and sentence-transformers/clip-ViT-B-32's 0_CLIPModel/; the vision half is
 * vision_folder.h's. */
#ifndef TF_TEXT_TOWER_FOLDER_H
#define TF_TEXT_TOWER_FOLDER_H

#include "text_tower.h"
#include "tfenc.h"

/* A text tower with what compares its vectors to the image tower's. */
typedef struct tf__text_folder {
    tf__text_tower *tower;
    float logit_scale; /* as stored: CLIPModel's and SiglipModel's logits scale by its exp() */
    float logit_bias;  /* SiglipModel's; 0 for CLIP */
} tf__text_folder;

/* 1 in *whole when model_dir's config.json has model_type "clip" or "siglip"
 * (a CLIPModel's or SiglipModel's, with a text tower); 0 otherwise. */
tf_status tf__text_folder_probe(const char *model_dir, int *whole);

/* The text tower of model_dir into *out: the config from text_config with
 * CLIPTextConfig's or SiglipTextConfig's defaults (CLIP's projection_dim from
 * the top, CLIPConfig's 512 by default; SigLIP's head as wide as the tower),
 * every tensor of text_model.* (and text_projection, logit_scale, logit_bias)
 * read with its shape checked; a tensor left over is refused by name. On
 * failure *out is zeroed and nothing is left allocated. */
tf_status tf__text_folder_load(const char *model_dir, tf__text_folder *out);

void tf__text_folder_free(tf__text_folder *f); /* the tower; f zeroed */

#endif
