/* image_folder.c — preprocessor_config.json and the labels of a vision
 * folder, by their paths in it. */
#include "image_folder.h"

#include "alloc.h"
#include "file.h"

tf_status tf__image_folder_processor(const char *model_dir, tf__image_processor *kind,
                                     tf__image_preprocess *pre)
{
    char *path = NULL;
    tf_status s = tf__path_join(model_dir, "preprocessor_config.json", &path);
    if (s == TF_OK)
        s = tf__image_config_read(path, kind, pre);
    tf__free(path);
    return s;
}

tf_status tf__image_folder_labels(const char *model_dir, tf__hf_arch *arch)
{
    char *path = NULL;
    tf_status s = tf__path_join(model_dir, "config.json", &path);
    if (s == TF_OK)
        s = tf__hf_arch_read_labels(arch, path, "config.json");
    tf__free(path);
    return s;
}
