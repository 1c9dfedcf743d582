/* hub_names.c — what a Hub name may be, and what the environment says
 * (huggingface_hub's constants.py and utils/_validators.py, validate_repo_id;
 * _local_folder.py, _validate_relative_filename; file_download.py,
 * _normalize_etag; utils/_auth.py, get_token). See hub.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "file.h"
#include "hub.h"

/* The longest part of a repo id: validate_repo_id's repo_name limit. */
#define TF_HUB_ID_PART_MAX 96
/* The largest token file read. */
#define TF_HUB_TOKEN_FILE_MAX 4096

/* ---- Names ----------------------------------------------------------------- */

/* ASCII only, whatever the locale. */
static int is_ascii_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_word_char(char c)
{
    return is_ascii_alnum(c) || c == '_';
}

static int is_id_char(char c)
{
    return is_word_char(c) || c == '-' || c == '.';
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Why part [len] of a repo id is not one, or NULL. */
static const char *id_part_problem(const char *part, size_t len)
{
    if (len == 0)
        return "an empty part";
    if (len > TF_HUB_ID_PART_MAX)
        return "a part longer than 96 characters";
    for (size_t i = 0; i < len; i++)
        if (!is_id_char(part[i]))
            return "a character other than letters, digits, '-', '_' and '.'";
    if (!is_word_char(part[0]) || !is_word_char(part[len - 1]))
        return "a part that starts or ends with '-' or '.'";
    return NULL;
}

tf_status tf__hub_check_repo_id(const char *repo_id)
{
    if (!repo_id)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "repo_id: NULL");
    const char *slash = strchr(repo_id, '/');
    const char *problem = NULL;
    if (slash && strchr(slash + 1, '/'))
        problem = "more than one '/'";
    else if (slash)
        problem = id_part_problem(repo_id, (size_t)(slash - repo_id));
    if (!problem)
        problem = slash ? id_part_problem(slash + 1, strlen(slash + 1))
                        : id_part_problem(repo_id, strlen(repo_id));
    if (!problem && (strstr(repo_id, "--") || strstr(repo_id, "..")))
        problem = "\"--\" or \"..\" in it";
    const size_t n = strlen(repo_id);
    if (!problem && n >= 4 && strcmp(repo_id + n - 4, ".git") == 0)
        problem = "\".git\" at its end";
    if (problem)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "repo_id \"%s\": expected \"name\" or \"org/name\" of letters, digits, "
                        "'-', '_' and '.' (as huggingface_hub's validate_repo_id), got %s",
                        repo_id, problem);
    return TF_OK;
}

/* Why path is not a relative path that stays in its folder, or NULL. */
static const char *path_problem(const char *path)
{
    if (path[0] == '\0')
        return "it is empty";
    if (strlen(path) > TF_HUB_PATH_MAX)
        return "it is longer than 4095 bytes";
    if (path[0] == '/')
        return "it is an absolute path";
    for (const char *c = path; *c; c++)
        if (is_control((unsigned char)*c) || *c == '\\')
            return "it has a control character or a backslash";
    for (const char *part = path;; part++) {
        const size_t len = strcspn(part, "/");
        if (len == 0)
            return "it has an empty part (\"//\" or a '/' at its end)";
        if (len > TF_HUB_NAME_MAX)
            return "a part of it is longer than 255 bytes";
        if ((len == 1 && part[0] == '.') || (len == 2 && part[0] == '.' && part[1] == '.'))
            return "it has a \".\" or \"..\" part";
        part += len;
        if (*part == '\0')
            return NULL;
    }
}

tf_status tf__hub_check_revision(const char *revision)
{
    const char *problem = path_problem(revision);
    if (!problem && strlen(revision) > TF_HUB_NAME_MAX)
        problem = "it is longer than 255 bytes";
    if (problem)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.revision \"%s\": not a branch, tag or commit: %s", revision,
                        problem);
    return TF_OK;
}

tf_status tf__hub_check_repo_file(const char *name, const char *what)
{
    const char *problem = path_problem(name);
    if (problem)
        return tf__fail(TF_ERR_FORMAT,
                        "%s: the name \"%s\" is not a path inside the repository's folder: %s",
                        what, name, problem);
    return TF_OK;
}

static int is_lower_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[n] == '\0';
}

int tf__hub_is_commit(const char *s)
{
    return is_lower_hex(s, TF_HUB_COMMIT_LEN);
}

int tf__hub_etag_is_sha256(const char *etag)
{
    return strlen(etag) == 64 && is_lower_hex(etag, 64);
}

tf_status tf__hub_etag(const char *value, const char *header, char *out)
{
    const char *v = value;
    if (strncmp(v, "W/", 2) == 0)
        v += 2;
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
        v++, n -= 2;
    int ok = n >= 1 && n <= TF_HUB_ETAG_MAX && v[0] != '.';
    for (size_t i = 0; ok && i < n; i++)
        ok = is_id_char(v[i]);
    if (!ok)
        return tf__fail(TF_ERR_FORMAT,
                        "%s %s: not a name a blob can have (1 to 128 letters, digits, '-', '_' "
                        "or '.', not starting with '.', in quotes or not)",
                        header, value);
    memcpy(out, v, n);
    out[n] = '\0';
    return TF_OK;
}

tf_status tf__hub_quote(const char *s, int keep_slash, char **out)
{
    static const char hex[] = "0123456789ABCDEF";
    const size_t n = strlen(s);
    char *q = tf__malloc(3 * n + 1); /* [3n + 1]: every byte may become %XX */
    if (!(*out = q))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for a URL", 3 * n + 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (is_ascii_alnum((char)*c) || strchr("_.-~", *c) || (keep_slash && *c == '/')) {
            *q++ = (char)*c;
        } else {
            *q++ = '%';
            *q++ = hex[*c >> 4];
            *q++ = hex[*c & 15];
        }
    }
    *q = '\0';
    return TF_OK;
}

/* ---- The environment ------------------------------------------------------- */

/* getenv, with "" taken as unset. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

const char *tf__hub_offline_variable(void)
{
    /* constants.py: HF_HUB_OFFLINE, or TRANSFORMERS_OFFLINE when that is unset or "" */
    const char *name = env("HF_HUB_OFFLINE") ? "HF_HUB_OFFLINE" : "TRANSFORMERS_OFFLINE";
    const char *v = env(name);
    static const char *const yes[] = {"1", "ON", "YES", "TRUE"};
    for (size_t i = 0; v && i < sizeof yes / sizeof *yes; i++)
        if (strcasecmp(v, yes[i]) == 0)
            return name;
    return NULL;
}

/* path with a leading "~" as $HOME (os.path.expanduser), allocated. */
static tf_status expand_home(const char *path, const char *from, char **out)
{
    if (path[0] != '~' || (path[1] != '/' && path[1] != '\0'))
        return tf__format_alloc(out, "%s", path);
    const char *home = env("HOME");
    if (!home)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s \"%s\": starts with ~ and HOME is not set",
                        from, path);
    return tf__format_alloc(out, "%s%s", home, path + 1);
}

/* HF_HOME as constants.py has it: $HF_HOME, $XDG_CACHE_HOME/huggingface,
 * ~/.cache/huggingface; *from names where it came from. */
static tf_status hf_home(char **out, const char **from)
{
    const char *v;
    if ((v = env("HF_HOME")))
        return *from = "HF_HOME", expand_home(v, "HF_HOME", out);
    if ((v = env("XDG_CACHE_HOME"))) {
        *from = "XDG_CACHE_HOME";
        return tf__format_alloc(out, "%s/huggingface", v);
    }
    *from = "HOME";
    if (!(v = env("HOME")))
        return *out = NULL,
               tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "no Hub cache folder: options.cache_dir, HF_HUB_CACHE, "
                        "HF_HOME, XDG_CACHE_HOME and HOME are all unset");
    return tf__format_alloc(out, "%s/.cache/huggingface", v);
}

static tf_status cache_dir(const char *option, char **out)
{
    *out = NULL;
    const char *v, *from = "options.cache_dir";
    tf_status s;
    if (option)
        s = expand_home(option, from, out);
    else if ((v = env(from = "HF_HUB_CACHE")) || (v = env(from = "HUGGINGFACE_HUB_CACHE")))
        s = expand_home(v, from, out);
    else {
        char *home;
        s = hf_home(&home, &from);
        if (s == TF_OK)
            s = tf__format_alloc(out, "%s/hub", home);
        tf__free(home);
    }
    if (s == TF_OK && strlen(*out) > TF_HUB_PATH_MAX)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "%s: the cache folder's path is %zu bytes, more "
                     "than the %d a path may have",
                     from, strlen(*out), TF_HUB_PATH_MAX);
    if (s) {
        tf__free(*out);
        *out = NULL;
    }
    return s;
}

static tf_status endpoint_url(const char *option, char **out)
{
    const char *from = option ? "options.endpoint" : "HF_ENDPOINT";
    const char *v = option ? option : env("HF_ENDPOINT");
    if (!v)
        v = TF_HUB_DEFAULT_ENDPOINT, from = "the default endpoint";
    size_t n = strlen(v);
    while (n > 0 && v[n - 1] == '/')
        n--;
    int ok = strncmp(v, "http://", 7) == 0 || strncmp(v, "https://", 8) == 0;
    for (size_t i = 0; ok && i < n; i++)
        ok = !is_control((unsigned char)v[i]) && v[i] != ' ';
    if (!ok || n > 1024)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "%s \"%s\": expected an http:// or https:// URL of at most 1024 bytes "
                        "without spaces or control characters",
                        from, v);
    return tf__format_alloc(out, "%.*s", (int)n, v);
}

/* The token in text (surrounding spaces and newlines stripped), allocated
 * into *out, or NULL when empty; refused with a control character, space
 * or non-ASCII byte inside (it goes into an HTTP header). */
static tf_status clean_token(const char *text, const char *from, char **out)
{
    *out = NULL;
    while (is_ascii_space(*text))
        text++;
    size_t n = strlen(text);
    while (n > 0 && is_ascii_space(text[n - 1]))
        n--;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] <= 0x20 || (unsigned char)text[i] >= 0x7f)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "%s: the token has a control character, space or non-ASCII byte at "
                            "byte %zu (0x%02x)",
                            from, i, (unsigned char)text[i]);
    return n ? tf__format_alloc(out, "%.*s", (int)n, text) : TF_OK;
}

/* The token file (HF_TOKEN_PATH, else $HF_HOME/token), or none when absent. */
static tf_status token_file(char **out)
{
    *out = NULL;
    char *path = NULL, *home = NULL, *text = NULL;
    const char *from = "HF_TOKEN_PATH", *v = env("HF_TOKEN_PATH");
    tf_status s = v ? expand_home(v, from, &path) : hf_home(&home, &from);
    if (s == TF_OK && !v)
        s = tf__format_alloc(&path, "%s/token", home);
    mode_t mode = 0;
    if (s == TF_OK)
        s = tf__file_probe(path, &mode);
    size_t len;
    if (s == TF_OK && mode)
        s = tf__file_read_all(path, TF_HUB_TOKEN_FILE_MAX, &text, &len);
    if (s == TF_OK && text)
        s = clean_token(text, path, out);
    tf__free(text);
    tf__free(path);
    tf__free(home);
    return s;
}

static tf_status token(const char *option, char **out)
{
    *out = NULL;
    if (option)
        return clean_token(option, "options.token", out);
    static const char *const names[] = {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = env(names[i]);
        if (v)
            return clean_token(v, names[i], out);
    }
    return token_file(out);
}

tf_status tf__hub_request_init(tf__hub_request *req, const char *repo_id, const char *revision,
                               const char *cache_dir_option, const char *endpoint,
                               const char *token_option)
{
    *req = (tf__hub_request){.repo_id = repo_id, .revision = revision};
    tf_status s = cache_dir(cache_dir_option, &req->cache);
    if (s == TF_OK) {
        const char *slash = strchr(repo_id, '/');
        s = slash ? tf__format_alloc(&req->storage, "%s/models--%.*s--%s", req->cache,
                                     (int)(slash - repo_id), repo_id, slash + 1)
                  : tf__format_alloc(&req->storage, "%s/models--%s", req->cache, repo_id);
    }
    if (s == TF_OK)
        s = endpoint_url(endpoint, &req->endpoint);
    if (s == TF_OK)
        s = token(token_option, &req->token);
    if (s)
        tf__hub_request_free(req);
    return s;
}

void tf__hub_request_free(tf__hub_request *req)
{
    tf__free(req->cache);
    tf__free(req->storage);
    tf__free(req->endpoint);
    tf__free(req->token);
    req->cache = req->storage = req->endpoint = req->token = NULL;
}
