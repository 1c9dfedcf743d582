/* vision_folder.h — a vision tower from a Hugging Face folder (config.json +
 * model.safetensors) laid out as transformers saves ViTModel /
 * ViTForImageClassification ("vit", google/vit-base-patch16-224), CLIPModel /
 * CLIPVisionModel(WithProjection) ("clip", "clip_vision_model",
 * openai/clip-vit-base-patch32), SiglipModel / SiglipVisionModel ("siglip",
 * "siglip_vision_model", google/siglip-base-patch16-224), or a
 * sentence-transformers folder whose modules.json has a
 * sentence_transformers.models.CLIPModel module (sentence-transformers/
 * clip-ViT-B-32: its 0_CLIPModel/ is a CLIPModel folder). */
#ifndef TF_VISION_FOLDER_H
#define TF_VISION_FOLDER_H

#include <cjson/cJSON.h>

#include "tfenc.h"
#include "vision.h"

/* A tensor's name in a checkpoint (after its tower's prefix) and ours. */
typedef struct tf__name_pair {
    const char *theirs, *ours;
} tf__name_pair;

/* CLIPEncoderLayer's and SiglipEncoderLayer's tensors after "<prefix>encoder.layers.{l}.",
 * ours after "layers.{l}." (both towers of both families have them). */
#define TF_CLIP_LAYER_NAMES 8
extern const tf__name_pair tf__clip_layer_names[TF_CLIP_LAYER_NAMES];

/* config.json's hidden_act in obj (transformers' ACT2FN names) into *out, a
 * tf_activation; absent: *out kept. label names the file in messages. */
tf_status tf__vision_read_activation(const cJSON *obj, const char *label, int32_t *out);
/* obj's layer_norm_eps into *out (a number in (0, 1] that float32 keeps); absent: kept. */
tf_status tf__vision_read_eps(const cJSON *obj, const char *label, float *out);

/* Loads the vision half of the model in dir into *out. A CLIPModel's or
 * SiglipModel's text tower (text_model.*, text_projection, logit_scale,
 * logit_bias) is left in the file. The config follows transformers' config
 * classes and their defaults (ViTConfig, CLIPVisionConfig from
 * vision_config, SiglipVisionConfig from vision_config); the heads follow
 * config.json's architectures[0]: ViTForImageClassification's classifier
 * (its labels from id2label), ViTModel's pooler when the file has
 * pooler.dense, CLIPModel's and CLIPVisionModelWithProjection's
 * visual_projection (projection_dim), SiglipModel's and SiglipVisionModel's
 * head with vision_use_head. Every tensor of the tower must be in the file
 * with its shape, a float dtype and finite values, and every tensor of the
 * file under the tower's prefix must be one of them: otherwise the message
 * names the tensor and both shapes (or the tensor left over). On failure
 * *out is NULL and nothing is left allocated. */
tf_status tf__vision_folder_load(const char *dir, tf__vision_model **out);

/* *model_dir (tf__free it) = the folder of the vision model dir holds: dir
 * when its config.json's model_type is one tf__vision_folder_load reads,
 * the CLIPModel module's folder of a sentence-transformers folder with one;
 * else NULL (a text model's folder, or no config.json). Fails only on a
 * modules.json or config.json that cannot be read, or a module path that
 * leaves the folder. */
tf_status tf__vision_folder_probe(const char *dir, char **model_dir);

#endif
