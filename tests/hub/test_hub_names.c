/* test_hub_names.c — the Hub client's parts that need no network
 * (lib/hub/): what a repo id, revision, file name and ETag may be
 * (huggingface_hub's validate_repo_id, _validate_relative_filename,
 * _normalize_etag), which files a folder needs, the cache folder, endpoint,
 * token and offline switch from the environment, the cache's links, refs
 * and locks, and tf_hub_resolve from a cache laid out by hand. */
#define _DEFAULT_SOURCE /* mkdtemp, setenv */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/suite.h"
#include "error.h"
#include "hub.h"
#include "tfenc.h"

/* ---- Names ------------------------------------------------------------------------------- */

static const char *const good_ids[] = {
    "foo", "foo/bar", "123", "Foo-BAR_foo.bar123", "sentence-transformers/all-MiniLM-L6-v2",
    "a/b", "_x_/y"};
static const struct {
    const char *id, *problem;
} bad_ids[] = {
    {"", "an empty part"},
    {"../x", "a part that starts or ends with '-' or '.'"},
    {"a/b/c", "more than one '/'"},
    {"/x", "an empty part"},
    {"x/", "an empty part"},
    {".repo", "a part that starts or ends with '-' or '.'"},
    {"x-/y", "a part that starts or ends with '-' or '.'"},
    {"foo--bar", "\"--\" or \"..\" in it"},
    {"a/foo..bar", "\"--\" or \"..\" in it"},
    {"foo.git", "\".git\" at its end"},
    {"a b", "a character other than letters, digits, '-', '_' and '.'"},
    {"caf\xc3\xa9/x", "a character other than letters, digits, '-', '_' and '.'"},
    {"a\\b", "a character other than letters, digits, '-', '_' and '.'"},
};

START_TEST(test_good_repo_ids)
{
    ck_assert_int_eq(tf__hub_check_repo_id(good_ids[_i]), TF_OK);
}
END_TEST

START_TEST(test_bad_repo_ids)
{
    ck_assert_int_eq(tf__hub_check_repo_id(bad_ids[_i].id), TF_ERR_INVALID_ARGUMENT);
    char want[512];
    snprintf(want, sizeof want,
             "repo_id \"%s\": expected \"name\" or \"org/name\" of letters, "
             "digits, '-', '_' and '.' (as huggingface_hub's validate_repo_id), got %s",
             bad_ids[_i].id, bad_ids[_i].problem);
    ck_assert_str_eq(tf_last_error(), want);
}
END_TEST

START_TEST(test_repo_id_lengths)
{
    char id[200];
    memset(id, 'a', 96);
    id[96] = '\0';
    ck_assert_int_eq(tf__hub_check_repo_id(id), TF_OK);
    id[96] = 'a', id[97] = '\0';
    ck_assert_int_eq(tf__hub_check_repo_id(id), TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(), "got a part longer than 96 characters"));
    ck_assert_int_eq(tf__hub_check_repo_id(NULL), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "repo_id: NULL");
}
END_TEST

START_TEST(test_revisions)
{
    const char *good[] = {"main", "v1.0", "refs/pr/1", "0123456789abcdef0123456789abcdef01234567",
                          "feature/ünïcode"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        ck_assert_msg(tf__hub_check_revision(good[i]) == TF_OK, "%s", good[i]);
    const struct {
        const char *revision, *problem;
    } bad[] = {{"", "it is empty"},
               {"../x", "it has a \".\" or \"..\" part"},
               {"a/../b", "it has a \".\" or \"..\" part"},
               {"a/./b", "it has a \".\" or \"..\" part"},
               {"a//b", "it has an empty part (\"//\" or a '/' at its end)"},
               {"a/", "it has an empty part (\"//\" or a '/' at its end)"},
               {"/abs", "it is an absolute path"},
               {"a\\b", "it has a control character or a backslash"},
               {"a\nb", "it has a control character or a backslash"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(tf__hub_check_revision(bad[i].revision), TF_ERR_INVALID_ARGUMENT);
        char want[256];
        snprintf(want, sizeof want, "options.revision \"%s\": not a branch, tag or commit: %s",
                 bad[i].revision, bad[i].problem);
        ck_assert_str_eq(tf_last_error(), want);
    }
    char long_revision[300];
    memset(long_revision, 'r', 256);
    long_revision[256] = '\0';
    ck_assert_int_eq(tf__hub_check_revision(long_revision), TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(), "it is longer than 255 bytes"));
}
END_TEST

START_TEST(test_repo_files)
{
    ck_assert_int_eq(tf__hub_check_repo_file("1_Pooling/config.json", "list"), TF_OK);
    ck_assert_int_eq(tf__hub_check_repo_file("a/b/c/d.safetensors", "list"), TF_OK);
    const char *bad[] = {"../x", "a/../../x", "/etc/passwd", "a\\b", ".", "a/./b", "a//b", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(tf__hub_check_repo_file(bad[i], "list") == TF_ERR_FORMAT, "%s", bad[i]);
    tf__hub_check_repo_file("../x", "modules.json[1]");
    ck_assert_str_eq(tf_last_error(),
                     "modules.json[1]: the name \"../x\" is not a path inside the "
                     "repository's folder: it has a \".\" or \"..\" part");
    char part[300];
    memset(part, 'p', 256);
    part[256] = '\0';
    ck_assert_int_eq(tf__hub_check_repo_file(part, "list"), TF_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(), "a part of it is longer than 255 bytes"));
}
END_TEST

START_TEST(test_etags)
{
    char out[TF_HUB_ETAG_MAX + 1];
    ck_assert_int_eq(tf__hub_etag("\"abc123\"", "ETag", out), TF_OK);
    ck_assert_str_eq(out, "abc123");
    ck_assert_int_eq(tf__hub_etag("W/\"def\"", "ETag", out), TF_OK);
    ck_assert_str_eq(out, "def");
    ck_assert_int_eq(tf__hub_etag("plain", "ETag", out), TF_OK);
    ck_assert_str_eq(out, "plain");
    const char *bad[] = {"\"../../x\"", "\"a/b\"", "\"\"", "\".hidden\"", "W/\"\"", "\"a b\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(tf__hub_etag(bad[i], "X-Linked-Etag", out) == TF_ERR_FORMAT, "%s", bad[i]);
    ck_assert_str_eq(tf_last_error(),
                     "X-Linked-Etag \"a b\": not a name a blob can have (1 to "
                     "128 letters, digits, '-', '_' or '.', not starting with "
                     "'.', in quotes or not)");
    char longest[TF_HUB_ETAG_MAX + 2];
    memset(longest, 'e', TF_HUB_ETAG_MAX + 1);
    longest[TF_HUB_ETAG_MAX + 1] = '\0';
    ck_assert_int_eq(tf__hub_etag(longest, "ETag", out), TF_ERR_FORMAT);
    longest[TF_HUB_ETAG_MAX] = '\0';
    ck_assert_int_eq(tf__hub_etag(longest, "ETag", out), TF_OK);
    ck_assert(
        tf__hub_etag_is_sha256("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    ck_assert(!tf__hub_etag_is_sha256("e3b0c44298fc1c149afbf4c8996fb92427ae41e4"));
    ck_assert(tf__hub_is_commit("e3b0c44298fc1c149afbf4c8996fb92427ae41e4"));
    ck_assert(!tf__hub_is_commit("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4"));
    ck_assert(!tf__hub_is_commit("main"));
}
END_TEST

START_TEST(test_quote)
{
    char *q;
    ck_assert_int_eq(tf__hub_quote("a b/c~d_e.f-g%", 1, &q), TF_OK);
    ck_assert_str_eq(q, "a%20b/c~d_e.f-g%25");
    free(q);
    ck_assert_int_eq(tf__hub_quote("refs/pr/1", 0, &q), TF_OK);
    ck_assert_str_eq(q, "refs%2Fpr%2F1");
    free(q);
    ck_assert_int_eq(tf__hub_quote("\xc3\xa9", 0, &q), TF_OK);
    ck_assert_str_eq(q, "%C3%A9");
    free(q);
}
END_TEST

/* ---- Which files ------------------------------------------------------------------------ */

static void add_all(tf__hub_names *list, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(tf__hub_names_add(list, names[i]), TF_OK);
}

START_TEST(test_wanted)
{
    tf__hub_names dirs = {0};
    const char *const d[] = {"", "1_Pooling", "2_Dense"};
    add_all(&dirs, d, 3);
    const char *const yes[] = {"config.json",
                               "model.safetensors",
                               "tokenizer.json",
                               "vocab.txt",
                               "modules.json",
                               "sentence_bert_config.json",
                               "sentence_xlm-roberta_config.json",
                               "preprocessor_config.json",
                               "spiece.model",
                               "model.safetensors.index.json",
                               "1_Pooling/config.json",
                               "2_Dense/config.json",
                               "2_Dense/model.safetensors"};
    const char *const no[] = {"README.md",
                              "pytorch_model.bin",
                              "onnx/model.onnx",
                              "3_Dense/config.json",
                              "1_Pooling/README.md",
                              "expected.json",
                              "model-00001-of-00002.safetensors",
                              "2_Dense/pytorch_model.bin",
                              "openvino/config.json",
                              ".gitattributes",
                              "tf_model.h5"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        ck_assert_msg(tf__hub_wanted(yes[i], &dirs), "%s is needed", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        ck_assert_msg(!tf__hub_wanted(no[i], &dirs), "%s is not needed", no[i]);
    tf__hub_names_free(&dirs);
}
END_TEST

static char tmp_dir[256];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/tfenc_hub_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static void remove_tmp_dir(void)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", tmp_dir);
    ck_assert_int_eq(system(command), 0);
}

/* <tmp_dir>/<name> := text, its folders made. */
static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    ck_assert_int_eq(tf__hub_make_parents(path), TF_OK);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_module_dirs)
{
    make_tmp_dir();
    write_file("modules.json",
               "[{\"idx\": 0, \"path\": \"\", \"type\": "
               "\"sentence_transformers.models.Transformer\"},"
               " {\"idx\": 1, \"path\": \"1_Pooling/\", \"type\": "
               "\"sentence_transformers.models.Pooling\"},"
               " {\"idx\": 2, \"path\": \"2_Normalize\", \"type\": "
               "\"sentence_transformers.models.Normalize\"}]");
    write_file("evil.json", "[{\"path\": \"\"}, {\"path\": \"../../etc\"}]");
    write_file("nopath.json", "[{\"type\": \"x\"}]");
    char path[1024];
    tf__hub_names dirs = {0}, configured = {0};
    snprintf(path, sizeof path, "%s/modules.json", tmp_dir);
    ck_assert_int_eq(tf__hub_module_dirs(path, "modules.json", &dirs, &configured, NULL), TF_OK);
    ck_assert_uint_eq(dirs.count, 3);
    ck_assert_str_eq(dirs.items[0], "");
    ck_assert_str_eq(dirs.items[1], "1_Pooling");
    ck_assert_str_eq(dirs.items[2], "2_Normalize");
    ck_assert_uint_eq(configured.count, 1); /* Normalize has no files, the top folder is "" */
    ck_assert_str_eq(configured.items[0], "1_Pooling");
    tf__hub_names_free(&dirs);
    snprintf(path, sizeof path, "%s/evil.json", tmp_dir);
    ck_assert_int_eq(tf__hub_module_dirs(path, "modules.json", &dirs, NULL, NULL), TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(),
                     "modules.json[1]: the name \"../../etc\" is not a path "
                     "inside the repository's folder: it has a \".\" or \"..\" "
                     "part");
    tf__hub_names_free(&dirs);
    snprintf(path, sizeof path, "%s/nopath.json", tmp_dir);
    ck_assert_int_eq(tf__hub_module_dirs(path, "modules.json", &dirs, NULL, NULL), TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(), "modules.json[0]: path is missing (it must be a string)");
    tf__hub_names_free(&dirs);
    tf__hub_names_free(&configured);
    remove_tmp_dir();
}
END_TEST

/* tf__hub_has_fn of a list of names. */
static int in_list(const char *file, const void *list)
{
    return tf__hub_names_has(list, file);
}

START_TEST(test_router_dirs)
{
    make_tmp_dir();
    write_file("modules.json",
               "[{\"idx\": 0, \"path\": \"\", \"type\": "
               "\"sentence_transformers.models.Router\"},"
               " {\"idx\": 1, \"path\": \"1_Router\", \"type\": "
               "\"sentence_transformers.models.Router\"}]");
    write_file("router_config.json",
               "{\"types\": {\"query_0_SparseStaticEmbedding\": \"sentence_transformers."
               "sparse_encoder.models.SparseStaticEmbedding\", \"document_0_MLMTransformer\": "
               "\"sentence_transformers.sparse_encoder.models.MLMTransformer\", "
               "\"document_1_SpladePooling\": \"sentence_transformers.sparse_encoder.models."
               "SpladePooling\", \"\": \"sentence_transformers.models.Transformer\", "
               "\"query_2_Normalize\": \"sentence_transformers.models.Normalize\"},"
               " \"structure\": {\"query\": [\"query_0_SparseStaticEmbedding\", "
               "\"query_2_Normalize\"], \"document\": [\"document_0_MLMTransformer\", "
               "\"document_1_SpladePooling\"], \"other\": [\"\"]}}");
    write_file("evil.json", "{\"structure\": {\"query\": [\"../../etc\"]}}");
    write_file("ids.json", "{\"structure\": {\"query\": [1]}}");
    write_file("nostructure.json", "{\"types\": {}}");
    char path[1024];
    tf__hub_names dirs = {0}, configured = {0}, routers = {0};
    snprintf(path, sizeof path, "%s/modules.json", tmp_dir);
    ck_assert_int_eq(tf__hub_module_dirs(path, "modules.json", &dirs, &configured, &routers),
                     TF_OK);
    ck_assert_uint_eq(routers.count, 2);
    ck_assert_str_eq(routers.items[0], "");
    ck_assert_str_eq(routers.items[1], "1_Router");
    ck_assert_uint_eq(configured.count, 0); /* a Router keeps router_config.json */
    snprintf(path, sizeof path, "%s/router_config.json", tmp_dir);
    ck_assert_int_eq(tf__hub_route_dirs(path, "", "router_config.json", &dirs, &configured), TF_OK);
    const char *const want_dirs[] = {"",
                                     "1_Router",
                                     "query_0_SparseStaticEmbedding",
                                     "query_2_Normalize",
                                     "document_0_MLMTransformer",
                                     "document_1_SpladePooling"};
    ck_assert_uint_eq(dirs.count, sizeof want_dirs / sizeof *want_dirs);
    for (size_t i = 0; i < dirs.count; i++)
        ck_assert_str_eq(dirs.items[i], want_dirs[i]);
    ck_assert_uint_eq(configured.count, 3); /* not Normalize, not the top folder */
    ck_assert_str_eq(configured.items[0], "query_0_SparseStaticEmbedding");
    ck_assert_str_eq(configured.items[1], "document_0_MLMTransformer");
    ck_assert_str_eq(configured.items[2], "document_1_SpladePooling");
    /* a Router in a module folder: its ids are folders of that folder */
    ck_assert_int_eq(
        tf__hub_route_dirs(path, "1_Router", "1_Router/router_config.json", &dirs, NULL), TF_OK);
    ck_assert(tf__hub_names_has(&dirs, "1_Router/document_1_SpladePooling"));
    ck_assert(tf__hub_wanted("1_Router/document_1_SpladePooling/config.json", &dirs));
    ck_assert(tf__hub_wanted("query_0_SparseStaticEmbedding/vocab.txt", &dirs));
    ck_assert(!tf__hub_wanted("query_0_SparseStaticEmbedding/README.md", &dirs));
    snprintf(path, sizeof path, "%s/evil.json", tmp_dir);
    ck_assert_int_eq(tf__hub_route_dirs(path, "", "router_config.json", &dirs, NULL),
                     TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(),
                     "router_config.json: structure.query[0]: the name \"../../etc\" is not a "
                     "path inside the repository's folder: it has a \".\" or \"..\" part");
    snprintf(path, sizeof path, "%s/ids.json", tmp_dir);
    ck_assert_int_eq(tf__hub_route_dirs(path, "", "router_config.json", &dirs, NULL),
                     TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(),
                     "router_config.json: structure.query must be a list of "
                     "module ids (strings), got 1");
    snprintf(path, sizeof path, "%s/nostructure.json", tmp_dir);
    ck_assert_int_eq(tf__hub_route_dirs(path, "", "router_config.json", &dirs, NULL),
                     TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(),
                     "router_config.json: structure is missing (it must be an "
                     "object of route -> module ids)");
    /* which file is a Router's config: router_config.json, else (in a module
     * folder only) the legacy config.json */
    tf__hub_names repo = {0};
    ck_assert_int_eq(tf__hub_names_add(&repo, "config.json"), TF_OK);
    ck_assert_int_eq(tf__hub_names_add(&repo, "1_Router/config.json"), TF_OK);
    char *file = NULL;
    ck_assert_int_eq(tf__hub_router_config("", in_list, &repo, &file), TF_OK);
    ck_assert_ptr_null(file);
    ck_assert_int_eq(tf__hub_router_config("1_Router", in_list, &repo, &file), TF_OK);
    ck_assert_str_eq(file, "1_Router/config.json");
    free(file);
    ck_assert_int_eq(tf__hub_names_add(&repo, "1_Router/router_config.json"), TF_OK);
    ck_assert_int_eq(tf__hub_router_config("1_Router", in_list, &repo, &file), TF_OK);
    ck_assert_str_eq(file, "1_Router/router_config.json");
    free(file);
    tf__hub_names_free(&repo);
    tf__hub_names_free(&dirs);
    tf__hub_names_free(&configured);
    tf__hub_names_free(&routers);
    remove_tmp_dir();
}
END_TEST

START_TEST(test_model_dir)
{
    tf__hub_names repo = {0}, named = {0};
    ck_assert_int_eq(tf__hub_names_add(&repo, "1_Dense/model.safetensors"), TF_OK);
    ck_assert_int_eq(tf__hub_names_add(&repo, "2_CLIPModel/model.safetensors.index.json"), TF_OK);
    const char *dir = NULL;
    ck_assert_int_eq(tf__hub_model_dir(NULL, in_list, &repo, &dir), TF_OK);
    ck_assert_str_eq(dir, ""); /* no modules.json: the top folder */
    ck_assert_int_eq(tf__hub_names_add(&named, "0_Asym"), TF_OK);
    ck_assert_int_eq(tf__hub_model_dir(&named, in_list, &repo, &dir), TF_OK);
    ck_assert_str_eq(dir, "0_Asym"); /* none holds weights: the first, whose are missing */
    ck_assert_int_eq(tf__hub_names_add(&named, "2_CLIPModel"), TF_OK);
    ck_assert_int_eq(tf__hub_names_add(&named, "1_Dense"), TF_OK);
    ck_assert_int_eq(tf__hub_model_dir(&named, in_list, &repo, &dir), TF_OK);
    ck_assert_str_eq(dir, "2_CLIPModel"); /* the first that holds weights (an index) */
    ck_assert_int_eq(tf__hub_names_add(&named, ""), TF_OK);
    ck_assert_int_eq(tf__hub_model_dir(&named, in_list, &repo, &dir), TF_OK);
    ck_assert_str_eq(dir, ""); /* a module in the top folder: it is the model's */
    tf__hub_names_free(&named);
    tf__hub_names_free(&repo);
}
END_TEST

START_TEST(test_index_shards)
{
    make_tmp_dir();
    write_file("index.json",
               "{\"metadata\": {}, \"weight_map\": {\"a\": \"m-1.safetensors\", "
               "\"b\": \"m-2.safetensors\", \"c\": \"m-1.safetensors\"}}");
    write_file("evil.json", "{\"weight_map\": {\"a\": \"../../x.safetensors\"}}");
    write_file("nomap.json", "{\"metadata\": {}}");
    char path[1024];
    tf__hub_names shards = {0};
    snprintf(path, sizeof path, "%s/index.json", tmp_dir);
    ck_assert_int_eq(tf__hub_index_shards(path, "sub", "sub/index.json", &shards), TF_OK);
    ck_assert_uint_eq(shards.count, 2);
    ck_assert_str_eq(shards.items[0], "sub/m-1.safetensors");
    ck_assert_str_eq(shards.items[1], "sub/m-2.safetensors");
    tf__hub_names_free(&shards);
    snprintf(path, sizeof path, "%s/evil.json", tmp_dir);
    ck_assert_int_eq(tf__hub_index_shards(path, "", "index", &shards), TF_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(), "\"../../x.safetensors\" is not a path"));
    snprintf(path, sizeof path, "%s/nomap.json", tmp_dir);
    ck_assert_int_eq(tf__hub_index_shards(path, "", "index", &shards), TF_ERR_FORMAT);
    ck_assert_str_eq(tf_last_error(), "index: weight_map is missing (it must be an object)");
    tf__hub_names_free(&shards);
    remove_tmp_dir();
}
END_TEST

/* ---- The environment ---------------------------------------------------------------------- */

static const char *const hub_variables[] = {
    "HF_HUB_CACHE",           "HUGGINGFACE_HUB_CACHE", "HF_HOME",
    "XDG_CACHE_HOME",         "HF_ENDPOINT",           "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH",         "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE"};

static void clear_environment(void)
{
    for (size_t i = 0; i < sizeof hub_variables / sizeof *hub_variables; i++)
        unsetenv(hub_variables[i]);
    setenv("HOME", "/home/u", 1);
}

/* The request's cache folder with the environment as it is. */
static void expect_cache(const char *option, const char *want)
{
    tf__hub_request req;
    ck_assert_int_eq(tf__hub_request_init(&req, "org/name", "main", option, NULL, NULL), TF_OK);
    ck_assert_str_eq(req.cache, want);
    tf__hub_request_free(&req);
}

START_TEST(test_cache_folder)
{
    clear_environment();
    expect_cache(NULL, "/home/u/.cache/huggingface/hub");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    expect_cache(NULL, "/xdg/huggingface/hub");
    setenv("HF_HOME", "~/hf", 1);
    expect_cache(NULL, "/home/u/hf/hub");
    setenv("HUGGINGFACE_HUB_CACHE", "/legacy", 1);
    expect_cache(NULL, "/legacy");
    setenv("HF_HUB_CACHE", "/new", 1);
    expect_cache(NULL, "/new");
    expect_cache("/option", "/option");
    expect_cache("~", "/home/u");
    setenv("HF_HUB_CACHE", "", 1); /* "" is unset */
    expect_cache(NULL, "/legacy");
    clear_environment();
    unsetenv("HOME");
    tf__hub_request req;
    ck_assert_int_eq(tf__hub_request_init(&req, "x", "main", NULL, NULL, NULL),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "no Hub cache folder: options.cache_dir, HF_HUB_CACHE, "
                     "HF_HOME, XDG_CACHE_HOME and HOME are all unset");
}
END_TEST

START_TEST(test_storage_endpoint_token)
{
    clear_environment();
    tf__hub_request req;
    ck_assert_int_eq(tf__hub_request_init(&req, "org/name", "main", "/c", NULL, NULL), TF_OK);
    ck_assert_str_eq(req.storage, "/c/models--org--name");
    ck_assert_str_eq(req.endpoint, "https://huggingface.co");
    ck_assert_ptr_null(req.token);
    tf__hub_request_free(&req);
    setenv("HF_ENDPOINT", "http://127.0.0.1:8080//", 1);
    setenv("HUGGING_FACE_HUB_TOKEN", "  legacy\n", 1);
    ck_assert_int_eq(tf__hub_request_init(&req, "name", "main", "/c", NULL, NULL), TF_OK);
    ck_assert_str_eq(req.storage, "/c/models--name");
    ck_assert_str_eq(req.endpoint, "http://127.0.0.1:8080");
    ck_assert_str_eq(req.token, "legacy");
    tf__hub_request_free(&req);
    setenv("HF_TOKEN", "hf_new", 1);
    ck_assert_int_eq(tf__hub_request_init(&req, "name", "main", "/c", "https://e/", NULL), TF_OK);
    ck_assert_str_eq(req.endpoint, "https://e");
    ck_assert_str_eq(req.token, "hf_new");
    tf__hub_request_free(&req);
    ck_assert_int_eq(tf__hub_request_init(&req, "name", "main", "/c", NULL, ""), TF_OK);
    ck_assert_ptr_null(req.token); /* "": none, whatever the environment says */
    tf__hub_request_free(&req);
    setenv("HF_TOKEN", "hf_a\x01", 1);
    ck_assert_int_eq(tf__hub_request_init(&req, "name", "main", "/c", NULL, NULL),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(),
                     "HF_TOKEN: the token has a control character, space or "
                     "non-ASCII byte at byte 4 (0x01)");
    setenv("HF_ENDPOINT", "file:///etc", 1);
    ck_assert_int_eq(tf__hub_request_init(&req, "name", "main", "/c", NULL, NULL),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(),
                                 "HF_ENDPOINT \"file:///etc\": expected an "
                                 "http:// or https:// URL"));
}
END_TEST

START_TEST(test_token_file)
{
    clear_environment();
    make_tmp_dir();
    setenv("HF_HOME", tmp_dir, 1);
    tf__hub_request req;
    ck_assert_int_eq(tf__hub_request_init(&req, "x", "main", "/c", NULL, NULL), TF_OK);
    ck_assert_ptr_null(req.token); /* no file: no token */
    tf__hub_request_free(&req);
    write_file("token", "hf_from_file\n");
    ck_assert_int_eq(tf__hub_request_init(&req, "x", "main", "/c", NULL, NULL), TF_OK);
    ck_assert_str_eq(req.token, "hf_from_file");
    tf__hub_request_free(&req);
    write_file("other", "hf_other");
    char path[512];
    snprintf(path, sizeof path, "%s/other", tmp_dir);
    setenv("HF_TOKEN_PATH", path, 1);
    ck_assert_int_eq(tf__hub_request_init(&req, "x", "main", "/c", NULL, NULL), TF_OK);
    ck_assert_str_eq(req.token, "hf_other");
    tf__hub_request_free(&req);
    remove_tmp_dir();
}
END_TEST

START_TEST(test_offline_switch)
{
    clear_environment();
    ck_assert_ptr_null(tf__hub_offline_variable());
    const char *yes[] = {"1", "ON", "yes", "True"}, *no[] = {"0", "off", "", "2"};
    for (size_t i = 0; i < 4; i++) {
        setenv("HF_HUB_OFFLINE", yes[i], 1);
        ck_assert_str_eq(tf__hub_offline_variable(), "HF_HUB_OFFLINE");
        setenv("HF_HUB_OFFLINE", no[i], 1);
        ck_assert_ptr_null(tf__hub_offline_variable());
    }
    setenv("TRANSFORMERS_OFFLINE", "1", 1);
    setenv("HF_HUB_OFFLINE", "0", 1); /* set: TRANSFORMERS_OFFLINE is not read */
    ck_assert_ptr_null(tf__hub_offline_variable());
    unsetenv("HF_HUB_OFFLINE");
    ck_assert_str_eq(tf__hub_offline_variable(), "TRANSFORMERS_OFFLINE");
}
END_TEST

/* ---- The cache ----------------------------------------------------------------------------- */

static const char commit_a[] = "0123456789abcdef0123456789abcdef01234567";

/* A request on a cache in tmp_dir. */
static void cache_request(tf__hub_request *req, const char *revision)
{
    clear_environment();
    char cache[512];
    snprintf(cache, sizeof cache, "%s/cache", tmp_dir);
    ck_assert_int_eq(tf__hub_request_init(req, "org/name", revision, cache, NULL, NULL), TF_OK);
}

START_TEST(test_links_and_refs)
{
    make_tmp_dir();
    tf__hub_request req;
    cache_request(&req, "refs/pr/1");
    write_file("cache/models--org--name/blobs/e1", "one");
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "config.json", "e1"), TF_OK);
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "1_Pooling/config.json", "e1"), TF_OK);
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "config.json", "e1"), TF_OK); /* again */
    char path[1024], target[256];
    snprintf(path, sizeof path, "%s/snapshots/%s/1_Pooling/config.json", req.storage, commit_a);
    ssize_t n = readlink(path, target, sizeof target - 1);
    ck_assert_int_gt(n, 0);
    target[n] = '\0';
    ck_assert_str_eq(target, "../../../blobs/e1");
    snprintf(path, sizeof path, "%s/snapshots/%s/config.json", req.storage, commit_a);
    n = readlink(path, target, sizeof target - 1);
    target[n] = '\0';
    ck_assert_str_eq(target, "../../blobs/e1");
    /* a link to a blob that is gone is replaced */
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "vocab.txt", "gone"), TF_OK);
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "vocab.txt", "e1"), TF_OK);
    ck_assert(tf__hub_is_file(path));
    char commit[TF_HUB_COMMIT_LEN + 1];
    ck_assert_int_eq(tf__hub_read_ref(&req, commit), TF_ERR_NOT_FOUND);
    ck_assert_int_eq(tf__hub_write_ref(&req, commit_a), TF_OK);
    ck_assert_int_eq(tf__hub_read_ref(&req, commit), TF_OK);
    ck_assert_str_eq(commit, commit_a);
    snprintf(path, sizeof path, "%s/refs/refs/pr/1", req.storage);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, TF_HUB_COMMIT_LEN); /* no newline, as huggingface_hub writes */
    write_file("cache/models--org--name/refs/refs/pr/1", "not a commit");
    ck_assert_int_eq(tf__hub_read_ref(&req, commit), TF_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(),
                                 "expected a commit (40 hex digits), got "
                                 "\"not a commit\""));
    tf__hub_request_free(&req);
    remove_tmp_dir();
}
END_TEST

static int32_t cancel_when_waiting(const tf_hub_progress *p, void *user)
{
    *(int *)user = p->waiting;
    return p->waiting;
}

START_TEST(test_lock_waits_and_can_be_cancelled)
{
    make_tmp_dir();
    tf__hub_request req;
    cache_request(&req, "main");
    int waited = 0;
    req.progress = cancel_when_waiting;
    req.progress_user_data = &waited;
    tf_hub_progress progress = {.struct_size = sizeof progress, .file = "model.safetensors"};
    int first, second;
    ck_assert_int_eq(tf__hub_lock(&req, "e1", &progress, &first), TF_OK);
    ck_assert_int_eq(waited, 0);
    ck_assert_int_eq(tf__hub_lock(&req, "e1", &progress, &second), TF_ERR_IO);
    ck_assert_int_eq(waited, 1);
    ck_assert_ptr_nonnull(strstr(tf_last_error(),
                                 "/.locks/models--org--name/e1.lock: cancelled "
                                 "by the progress callback while another "
                                 "download of model.safetensors held its lock"));
    tf__hub_unlock(first);
    ck_assert_int_eq(tf__hub_lock(&req, "e1", &progress, &second), TF_OK);
    tf__hub_unlock(second);
    tf__hub_request_free(&req);
    remove_tmp_dir();
}
END_TEST

/* ---- tf_hub_resolve from a cache laid out by hand ---------------------------------------- */

/* A complete snapshot of org/name at commit_a, refs/main naming it. */
static void lay_out_cache(void)
{
    write_file("cache/models--org--name/blobs/c", "{}");
    write_file("cache/models--org--name/blobs/m", "weights");
    write_file("cache/models--org--name/refs/main", commit_a);
    tf__hub_request req;
    cache_request(&req, "main");
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "config.json", "c"), TF_OK);
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "model.safetensors", "m"), TF_OK);
    tf__hub_request_free(&req);
}

static tf_status resolve_offline(const char *revision, char *dir, size_t size, size_t *len)
{
    char cache[512];
    snprintf(cache, sizeof cache, "%s/cache", tmp_dir);
    tf_hub_options opts;
    tf_hub_options_init(&opts);
    opts.cache_dir = cache;
    opts.revision = revision;
    opts.local_files_only = 1;
    return tf_hub_resolve("org/name", &opts, dir, size, len);
}

START_TEST(test_resolve_from_the_cache)
{
    make_tmp_dir();
    lay_out_cache();
    char dir[4096], want[1024];
    size_t len = 0;
    snprintf(want, sizeof want, "%s/cache/models--org--name/snapshots/%s", tmp_dir, commit_a);
    tf__fail(TF_ERR_SHAPE, "before");
    ck_assert_int_eq(resolve_offline(NULL, dir, sizeof dir, &len), TF_OK);
    ck_assert_str_eq(dir, want);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_str_eq(tf_last_error(), "before"); /* a success leaves the message */
    ck_assert_int_eq(resolve_offline(commit_a, dir, sizeof dir, &len), TF_OK);
    ck_assert_str_eq(dir, want);
    /* a dir too small: the length, and dir untouched */
    char small[8] = "keep";
    ck_assert_int_eq(resolve_offline(NULL, small, sizeof small, &len), TF_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_str_eq(small, "keep");
    ck_assert_int_eq(resolve_offline(NULL, NULL, 0, &len), TF_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(len, strlen(want));
    remove_tmp_dir();
}
END_TEST

START_TEST(test_resolve_refuses_an_incomplete_snapshot)
{
    make_tmp_dir();
    lay_out_cache();
    char path[1024], dir[4096];
    snprintf(path, sizeof path, "%s/cache/models--org--name/blobs/m", tmp_dir);
    ck_assert_int_eq(unlink(path), 0); /* the weights' link now leads nowhere */
    ck_assert_int_eq(resolve_offline(NULL, dir, sizeof dir, NULL), TF_ERR_NOT_FOUND);
    char want[2048];
    snprintf(want, sizeof want,
             "org/name at revision main: not in the cache, and "
             "options.local_files_only keeps the Hub out: %s/cache/models--org--name/snapshots/"
             "%s/model.safetensors: not in the cached snapshot of org/name (revision main, "
             "commit %s)",
             tmp_dir, commit_a, commit_a);
    ck_assert_str_eq(tf_last_error(), want);
    write_file("cache/models--org--name/blobs/m", "weights");
    write_file("cache/models--org--name/blobs/j",
               "[{\"path\": \"\", \"type\": \"sentence_transformers.models.Transformer\"},"
               " {\"path\": \"1_Pooling\", \"type\": \"sentence_transformers.models.Pooling\"}]");
    tf__hub_request req;
    cache_request(&req, "main");
    ck_assert_int_eq(tf__hub_link(&req, commit_a, "modules.json", "j"), TF_OK);
    tf__hub_request_free(&req);
    ck_assert_int_eq(resolve_offline(NULL, dir, sizeof dir, NULL), TF_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(tf_last_error(),
                                 "/1_Pooling/config.json: not in the cached "
                                 "snapshot"));
    ck_assert_int_eq(resolve_offline("v2", dir, sizeof dir, NULL), TF_ERR_NOT_FOUND);
    ck_assert_ptr_nonnull(strstr(tf_last_error(),
                                 "refs/v2: no such file: the cache has no "
                                 "commit for org/name at revision v2"));
    remove_tmp_dir();
}
END_TEST

START_TEST(test_resolve_arguments)
{
    char dir[64];
    tf_hub_options opts;
    tf_hub_options_init(&opts);
    opts.local_files_only = 2;
    ck_assert_int_eq(tf_hub_resolve("org/name", &opts, dir, sizeof dir, NULL),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "options.local_files_only: expected 0 or 1, got 2");
    opts.local_files_only = 0;
    opts.struct_size = 3;
    ck_assert_int_eq(tf_hub_resolve("org/name", &opts, dir, sizeof dir, NULL),
                     TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(tf_last_error(), "options.struct_size: expected 64..4096"));
    ck_assert_int_eq(tf_hub_resolve("org/name", NULL, NULL, 5, NULL), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "dir: NULL with size 5");
    ck_assert_uint_eq(tf_struct_size("tf_hub_options"), sizeof(tf_hub_options));
    ck_assert_uint_eq(tf_struct_size("tf_hub_progress"), sizeof(tf_hub_progress));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hub_names");
    TCase *names = tcase_create("names");
    tcase_add_loop_test(names, test_good_repo_ids, 0, sizeof good_ids / sizeof *good_ids);
    tcase_add_loop_test(names, test_bad_repo_ids, 0, sizeof bad_ids / sizeof *bad_ids);
    tcase_add_test(names, test_repo_id_lengths);
    tcase_add_test(names, test_revisions);
    tcase_add_test(names, test_repo_files);
    tcase_add_test(names, test_etags);
    tcase_add_test(names, test_quote);
    suite_add_tcase(s, names);
    TCase *files = tcase_create("files");
    tcase_add_test(files, test_wanted);
    tcase_add_test(files, test_module_dirs);
    tcase_add_test(files, test_router_dirs);
    tcase_add_test(files, test_model_dir);
    tcase_add_test(files, test_index_shards);
    suite_add_tcase(s, files);
    TCase *environment = tcase_create("environment");
    tcase_add_test(environment, test_cache_folder);
    tcase_add_test(environment, test_storage_endpoint_token);
    tcase_add_test(environment, test_token_file);
    tcase_add_test(environment, test_offline_switch);
    suite_add_tcase(s, environment);
    TCase *cache = tcase_create("cache");
    tcase_add_test(cache, test_links_and_refs);
    tcase_add_test(cache, test_lock_waits_and_can_be_cancelled);
    tcase_add_test(cache, test_resolve_from_the_cache);
    tcase_add_test(cache, test_resolve_refuses_an_incomplete_snapshot);
    tcase_add_test(cache, test_resolve_arguments);
    suite_add_tcase(s, cache);
    return run_suite(s);
}
