/* hub.h — the Hub client's parts (tfenc.h, "Models by name"; docs/hub.md).
 *
 *   hub_api.c     tf_hub_resolve: the request, then the Hub or the cache
 *   hub_names.c   what a name may be (repo id, revision, file, ETag), the
 *                 environment (cache folder, endpoint, token, offline)
 *   hub_select.c  the files a model folder needs, of a repository's
 *   hub_cache.c   huggingface_hub's cache layout: refs, blobs, snapshots, locks
 *   hub_fetch.c   online: the commit and file list, then each file (libcurl)
 *   hub_http.c    the HTTP requests and the Hub's answers (libcurl)
 *   hub_blob.c    one blob downloaded, resumed, checked and renamed (libcurl)
 *   hub_fetch_absent.c  tf__hub_fetch of a build without libcurl
 *
 * Internal names shared across these files start with tf__hub_. */
#ifndef TF_HUB_H
#define TF_HUB_H

#include <stddef.h>
#include <stdint.h>

#include "tfenc.h"

/* 40 hex digits: a git commit (and a git blob id). */
#define TF_HUB_COMMIT_LEN 40
/* A path this client creates or returns, without its NUL: Linux's PATH_MAX
 * less one. A part of it (a file or folder name): NAME_MAX. */
#define TF_HUB_PATH_MAX 4095
#define TF_HUB_NAME_MAX 255
/* The longest ETag taken as a blob's name. */
#define TF_HUB_ETAG_MAX 128
#define TF_HUB_DEFAULT_REVISION "main"
#define TF_HUB_DEFAULT_ENDPOINT "https://huggingface.co"

/* One tf_hub_resolve call, the caller's options and the environment read. */
typedef struct tf__hub_request {
    const char *repo_id;  /* checked: "name" or "org/name" */
    const char *revision; /* checked; "main" when the caller gave none */
    char *cache;          /* the cache folder */
    char *storage;        /* <cache>/models--<org>--<name> */
    char *endpoint;       /* without a trailing '/' */
    char *token;          /* NULL: none */
    tf_hub_progress_fn progress;
    void *progress_user_data;
} tf__hub_request;

/* ---- hub_names.c ----------------------------------------------------------- */

/* TF_ERR_INVALID_ARGUMENT naming the argument unless repo_id is a Hub id
 * as huggingface_hub's validate_repo_id takes one (ASCII only). */
tf_status tf__hub_check_repo_id(const char *repo_id);
/* TF_ERR_INVALID_ARGUMENT unless revision is a name refs/ can hold. */
tf_status tf__hub_check_revision(const char *revision);
/* TF_ERR_FORMAT "<what>: ..." unless name (a repository's file, or a
 * folder: a module's path) is a relative path that stays in its folder:
 * parts of 1..255 bytes, none "." or "..", no backslash or control
 * character, at most TF_HUB_PATH_MAX bytes. what names where it came from. */
tf_status tf__hub_check_repo_file(const char *name, const char *what);
/* 1 when s is 40 lowercase hex digits. */
int tf__hub_is_commit(const char *s);
/* The ETag header's value as huggingface_hub's _normalize_etag makes it (no
 * W/ prefix, no quotes) into out [TF_HUB_ETAG_MAX + 1]; TF_ERR_FORMAT
 * naming header and value unless it is a name a blob can have: 1..128
 * letters, digits, '-', '_' or '.', not starting with '.'. */
tf_status tf__hub_etag(const char *value, const char *header, char *out);
/* 1 when etag is 64 lowercase hex digits: an LFS file's sha256. */
int tf__hub_etag_is_sha256(const char *etag);

/* The request's cache, storage, endpoint and token from the options (NULL
 * fields: the environment), allocated into req (tf__hub_request_free). */
tf_status tf__hub_request_init(tf__hub_request *req, const char *repo_id, const char *revision,
                               const char *cache_dir, const char *endpoint, const char *token);
void tf__hub_request_free(tf__hub_request *req);
/* The environment variable that turns the network off (HF_HUB_OFFLINE or
 * TRANSFORMERS_OFFLINE set to 1, ON, YES or TRUE), or NULL. */
const char *tf__hub_offline_variable(void);
/* s percent-encoded as huggingface_hub's quote (safe: "/" when keep_slash,
 * else none), allocated into *out. */
tf_status tf__hub_quote(const char *s, int keep_slash, char **out);

/* ---- hub_select.c ---------------------------------------------------------- */

/* A list of names, each allocated. */
typedef struct tf__hub_names {
    char **items; /* [count] */
    size_t count, capacity;
} tf__hub_names;

tf_status tf__hub_names_add(tf__hub_names *list, const char *name);
int tf__hub_names_has(const tf__hub_names *list, const char *name);
void tf__hub_names_free(tf__hub_names *list);

/* 1 when file, a repository's file, is one a model folder needs in one of
 * dirs (the top folder "" and the module folders): a name of the table in
 * hub_select.c. Shards are added by the index that names them. */
int tf__hub_wanted(const char *file, const tf__hub_names *dirs);
/* The module folders modules.json (at path, label in messages) names, each
 * checked (tf__hub_check_repo_file) and without a trailing '/', added to
 * dirs once each ("" the top folder); those of modules that keep a
 * config.json (all but Normalize, which has no files, and Router) also to
 * configured, and those of Routers to routers, each when not NULL. */
tf_status tf__hub_module_dirs(const char *path, const char *label, tf__hub_names *dirs,
                              tf__hub_names *configured, tf__hub_names *routers);
/* The folders of a Router's modules (sentence-transformers' models/Router.py,
 * Router.load): each module id of each route of router_config.json's
 * "structure" (at path, label in messages) as a folder of dir, the
 * Router's own ("" the top folder; an id "" is dir itself), added to dirs
 * and configured as tf__hub_module_dirs adds them ("types" gives each id's
 * class). */
tf_status tf__hub_route_dirs(const char *path, const char *dir, const char *label,
                             tf__hub_names *dirs, tf__hub_names *configured);
/* The shards model.safetensors.index.json (at path, in the repository
 * folder dir, label in messages) names: weight_map's values, each dir/value
 * checked, added to shards once each. */
tf_status tf__hub_index_shards(const char *path, const char *dir, const char *label,
                               tf__hub_names *shards);

/* 1 when dir/name (name alone for the top folder, dir "") is there: a
 * file of the repository's list, or of the cached snapshot; where is the
 * list or the snapshot's request and commit. */
typedef int (*tf__hub_has_fn)(const char *file, const void *where);
/* TF_OK when folder dir ("" the top folder, else a module's) of a
 * repository holds weights libtfenc reads (model.safetensors or its
 * index), or none and not required. A folder with PyTorch's pickle instead
 * is TF_ERR_UNSUPPORTED "<repo_id>[/<dir>] at revision R (commit C): <file>
 * but no model.safetensors: " and how to convert it (weights_files.h, the
 * words the folder's loader says it in); a required folder with neither
 * TF_ERR_NOT_FOUND "<repo_id>[/<dir>] at revision R (commit C): no
 * model.safetensors ...". */
tf_status tf__hub_check_weights(const tf__hub_request *req, const char *commit, const char *dir,
                                int required, tf__hub_has_fn has, const void *where);
/* The folder whose config.json and weights are the model's, as the loaders
 * find it (tf__model_source, vision_folder.c), in a repository whose
 * modules.json names the module folders named (NULL: it has none): the top
 * folder "", unless named lacks it (a sentence-transformers folder whose
 * model is a module's, as sentence-transformers/clip-ViT-B-32's
 * 0_CLIPModel): then the first of named that holds model.safetensors or
 * its index, else the first of named (whose weights are then missing).
 * *dir points into named or to a literal "". */
tf_status tf__hub_model_dir(const tf__hub_names *named, tf__hub_has_fn has, const void *where,
                            const char **dir);
/* The Router config file of the Router in folder dir, as Router.load (and
 * st_sparse.c) picks it: "<dir>/router_config.json" when has() finds it,
 * else, in a module folder, the legacy "<dir>/config.json" (Asym's) when
 * has() finds that, allocated into *file; NULL when there is none (the top
 * folder's config.json is the model's, never a Router's). */
tf_status tf__hub_router_config(const char *dir, tf__hub_has_fn has, const void *where,
                                char **file);

/* ---- hub_cache.c ----------------------------------------------------------- */

/* The commit refs/<revision> of the storage folder holds into commit[41];
 * TF_ERR_NOT_FOUND when there is none, TF_ERR_FORMAT when it is not a
 * commit. */
tf_status tf__hub_read_ref(const tf__hub_request *req, char *commit);
/* refs/<revision> := commit, replaced whole, unless it holds it already or
 * revision is the commit. */
tf_status tf__hub_write_ref(const tf__hub_request *req, const char *commit);
/* "<storage>/snapshots/<commit>" and "/<file>" when file is not NULL,
 * allocated into *out; TF_ERR_INVALID_ARGUMENT when longer than
 * TF_HUB_PATH_MAX. */
tf_status tf__hub_snapshot_path(const tf__hub_request *req, const char *commit, const char *file,
                                char **out);
/* "<storage>/blobs/<etag>" (suffix appended: "", ".incomplete"), as above. */
tf_status tf__hub_blob_path(const tf__hub_request *req, const char *etag, const char *suffix,
                            char **out);
/* 1 when path leads (through its links) to a regular file. */
int tf__hub_is_file(const char *path);
/* Creates the folders of path that do not exist, up to its last '/'. */
tf_status tf__hub_make_parents(const char *path);
/* snapshots/<commit>/<file> := a relative symbolic link to blobs/<etag>,
 * unless it already leads to a file. */
tf_status tf__hub_link(const tf__hub_request *req, const char *commit, const char *file,
                       const char *etag);
/* TF_OK when the cached snapshot of commit is a folder a pipeline can load:
 * config.json, the weights (model.safetensors, or the index and its
 * shards) and every module folder modules.json names, in the top folder
 * and each module folder that has them; else TF_ERR_NOT_FOUND naming the
 * first file missing. */
tf_status tf__hub_check_snapshot(const tf__hub_request *req, const char *commit);
/* Takes huggingface_hub's lock of a blob, <cache>/.locks/<repo folder>/<etag>.lock
 * (flock, as Python's filelock), into *fd; waits while another process or
 * thread holds it, telling progress (waiting 1), which may cancel. */
tf_status tf__hub_lock(const tf__hub_request *req, const char *etag, tf_hub_progress *progress,
                       int *fd);
void tf__hub_unlock(int fd);

/* ---- hub_fetch.c (hub_fetch_absent.c without libcurl) ---------------------- */

/* Online: the commit the revision is now (into commit[41]) and every file
 * the folder needs in its snapshot, then refs/<revision>. On failure
 * *fallback is 1 when the cache may answer instead (the Hub was not
 * reached, or answered the commit's request with an error other than "no
 * such revision"), 0 when its error stands. */
tf_status tf__hub_fetch(const tf__hub_request *req, char *commit, int *fallback);

#endif
