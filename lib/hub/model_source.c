/* model_source.c — tf_model_resolve: what a user names as a model (a path
 * on disk, else a Hub id) to the path tf_pipeline_load and tf_encoder_load
 * read, the one reading every surface shares (tfenc.h, "One model source"). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "abi.h"
#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"

/* 1 when nothing at all is at path (not even a link to nothing, which the
 * loader names): the source may be a Hub id. */
static int nothing_at(const char *path)
{
    struct stat st;
    return lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* path into dir (size bytes), its length into *len. */
static tf_status copy_path(const char *path, char *dir, size_t size, size_t *len)
{
    const size_t n = strlen(path);
    if (len)
        *len = n;
    if (n >= size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "dir: %zu bytes, but the path \"%s\" needs %zu with its NUL", size, path,
                        n + 1);
    memcpy(dir, path, n + 1);
    return TF_OK;
}

tf_status tf_model_resolve(const char *source, const tf_hub_options *opts, char *dir, size_t size,
                           size_t *len)
{
    if (!source || !dir)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", source ? "dir" : "source");
    if (!source[0])
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "source is empty; expected a model folder, file or Hub id");
    tf_hub_options o;
    tf_hub_options_init(&o);
    tf_status s = opts ? tf__abi_read(&o, sizeof o, opts, TF_HUB_OPTIONS_SIZE_0_4, "options")
                       : TF_OK;
    if (s)
        return s;
    if (!nothing_at(source)) {
        const char *revision = o.revision;
        if (revision)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "options.revision \"%s\": source \"%s\" is on disk, which has no "
                            "revisions (a Hub id's)",
                            revision, source);
        return copy_path(source, dir, size, len);
    }
    if (tf__hub_check_repo_id(source) != TF_OK) {
        const char *why = strstr(tf_last_error(), ": expected ");
        return tf__fail(TF_ERR_IO, "%s: no such folder, and not a Hub id (%s)", source,
                        why ? why + 2 : tf_last_error());
    }
    if ((s = tf_hub_resolve(source, opts, dir, size, len)) != TF_OK) {
        char *hub_error;
        if (tf__format_alloc(&hub_error, "%s", tf_last_error()))
            return TF_ERR_OUT_OF_MEMORY;
        tf__fail(s, "%s: no such folder; as a Hub id: %s", source, hub_error);
        tf__free(hub_error);
    }
    return s;
}
