"""tf_hub_resolve against a Hub on 127.0.0.1 (fake_hub.py), driven through
hub_resolve (a tfenc.h client): downloads, the cache layout huggingface_hub
makes, offline use, revisions, the Hub's errors, a broken connection resumed,
a corrupted LFS file refused, the token, and the cache shared with
@huggingface/hub (npm) both ways.

Environment (tests/hub/meson.build sets it): TFENC_HUB_RESOLVE (the driver),
TFENC_DATA_DIR (tests/data), TFENC_HUB_ONLINE ("1" when the library has the
Hub client), TFENC_HUB_NPM_DIR (a folder for @huggingface/hub's install);
TFENC_HUB_WRAPPER, when set, runs the driver under it (valgrind).
"""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_hub import FakeHub, Repo, folder_files, git_blob_id, make_commit  # noqa: E402

HUB_RESOLVE = os.environ.get("TFENC_HUB_RESOLVE")
# A command to run hub_resolve under ("valgrind --error-exitcode=99 -q"), or none.
WRAPPER = shlex.split(os.environ.get("TFENC_HUB_WRAPPER", ""))
DATA = os.environ.get("TFENC_DATA_DIR", "")
ONLINE = os.environ.get("TFENC_HUB_ONLINE") == "1"
TOKEN = "hf_test_token_0123456789"

pytestmark = pytest.mark.skipif(not HUB_RESOLVE, reason="TFENC_HUB_RESOLVE is not set")
online = pytest.mark.skipif(not ONLINE, reason="the library was built without the Hub client")

DENSE = "tfenc-test/st-dense"
DENSE_MAIN = make_commit(DENSE, "main")
DENSE_V1 = make_commit(DENSE, "v1")
# What st_dense's folder needs: everything but the test's own files.
DENSE_NEEDED = {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json",
                "modules.json", "config_sentence_transformers.json", "1_Pooling/config.json",
                "2_Dense/config.json", "2_Dense/model.safetensors", "3_Dense/config.json",
                "3_Dense/model.safetensors"}
# Files the Hub has that a folder does not need.
EXTRAS = {"README.md": b"# a test model\n", "pytorch_model.bin": b"\x80\x02 not read",
          "onnx/model.onnx": b"onnx", "2_Dense/pytorch_model.bin": b"\x80\x02 not read"}


def pipeline_files(name):
    return folder_files(os.path.join(DATA, "pipelines", name))


# A vision folder: its image processor's preprocessor_config.json (image_folder.c reads it).
VISION = "tfenc-test/vision"
VISION_NEEDED = {"config.json", "model.safetensors", "preprocessor_config.json"}
# A sentence-transformers image model whose model is a module's, with nothing of it in the top
# folder (as sentence-transformers/clip-ViT-B-32: vision_folder.c finds 0_CLIPModel).
ST_CLIP = "tfenc-test/st-clip"
ST_CLIP_NEEDED = {"modules.json", "config_sentence_transformers.json", "0_CLIPModel/config.json",
                  "0_CLIPModel/model.safetensors", "0_CLIPModel/preprocessor_config.json"}
# A SparseEncoder whose one module is a Router (tests/data/sparse/opensearch_doc_v2, laid out
# as opensearch-project/opensearch-neural-sparse-encoding-doc-v2-distill): router_config.json
# names the route folders, the query route's with its own tokenizer.
ROUTER = "tfenc-test/router"
ROUTER_NEEDED = {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json",
                 "special_tokens_map.json", "sentence_bert_config.json", "modules.json",
                 "config_sentence_transformers.json", "router_config.json",
                 "query_0_SparseStaticEmbedding/config.json",
                 "query_0_SparseStaticEmbedding/model.safetensors",
                 "query_0_SparseStaticEmbedding/vocab.txt",
                 "query_0_SparseStaticEmbedding/tokenizer_config.json",
                 "query_0_SparseStaticEmbedding/special_tokens_map.json",
                 "document_1_SpladePooling/config.json"}


def fake_shard(name):
    return ("shard %s" % name).encode() * 100


def make_repos():
    main = dict(pipeline_files("st_dense"), **EXTRAS)
    repos = [Repo(DENSE, {DENSE_MAIN: main, DENSE_V1: pipeline_files("st_mean_norm")},
                  {"main": DENSE_MAIN, "v1": DENSE_V1})]
    minilm = pipeline_files("st_minilm")
    repos.append(Repo("tfenc-test/private", {make_commit("p", "main"): minilm},
                      {"main": make_commit("p", "main")}, token=TOKEN))
    repos.append(Repo("tfenc-test/minilm", {make_commit("m", "main"): minilm},
                      {"main": make_commit("m", "main")}))

    def index(*shards):
        return json.dumps({"metadata": {}, "weight_map": {
            "t%d" % i: s for i, s in enumerate(shards)}}).encode()

    shards = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    sharded = {"config.json": minilm["config.json"], "vocab.txt": minilm["vocab.txt"],
               "model.safetensors.index.json": index(shards[0], shards[1], shards[0]),
               shards[0]: fake_shard(shards[0]), shards[1]: fake_shard(shards[1]),
               "old-00001-of-00001.safetensors": fake_shard("old")}
    bad = {"missing-shard": index("model-00009-of-00009.safetensors"),
           "evil-index": index("../../../evil.safetensors")}
    for name, commit_files in [("sharded", sharded)] + [
            (k, {"config.json": minilm["config.json"], "model.safetensors.index.json": v})
            for k, v in bad.items()]:
        repos.append(Repo("tfenc-test/" + name, {make_commit(name, "main"): commit_files},
                          {"main": make_commit(name, "main")}))
    evil_modules = dict(minilm, **{"modules.json": json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "../../evil",
         "type": "sentence_transformers.models.Pooling"}]).encode()})
    repos.append(Repo("tfenc-test/evil-modules", {make_commit("e", "main"): evil_modules},
                      {"main": make_commit("e", "main")}))
    vision = folder_files(os.path.join(DATA, "image_pipeline", "vit_model"))
    repos.append(Repo(VISION, {make_commit("v", "main"): dict(vision, **EXTRAS)},
                      {"main": make_commit("v", "main")}))
    st_clip = folder_files(os.path.join(DATA, "image_pipeline", "st_clip"))
    st_clip.update({"README.md": EXTRAS["README.md"],
                    "0_CLIPModel/pytorch_model.bin": EXTRAS["pytorch_model.bin"]})
    repos.append(Repo(ST_CLIP, {make_commit("c", "main"): st_clip},
                      {"main": make_commit("c", "main")}))
    router = folder_files(os.path.join(DATA, "sparse", "opensearch_doc_v2"))
    repos.append(Repo(ROUTER, {make_commit("r", "main"): dict(router, **EXTRAS)},
                      {"main": make_commit("r", "main")}))
    return repos


@pytest.fixture(scope="module")
def hub():
    server = FakeHub(make_repos())
    yield server
    server.close()


@pytest.fixture
def fresh(hub, tmp_path):
    """The hub with no faults and an empty log; a cache folder of this test's own."""
    from fake_hub import Faults
    hub.faults = Faults()
    hub.clear_log()
    cache = tmp_path / "cache"
    return hub, str(cache)


def run(repo, *args, cache, endpoint=None, env=None, check=True):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_", "XDG_"))}
    e.update({"HF_HUB_CACHE": cache, "HOME": os.path.dirname(cache),
              "HF_HOME": os.path.join(os.path.dirname(cache), "hf_home")})
    if endpoint:
        e["HF_ENDPOINT"] = endpoint
    e.update(env or {})
    p = subprocess.run(WRAPPER + [HUB_RESOLVE, repo, *args], env=e, capture_output=True,
                       text=True, timeout=600)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def storage(cache, repo):
    return os.path.join(cache, "models--" + repo.replace("/", "--"))


def snapshot_files(folder):
    out = set()
    for root, _, names in os.walk(folder):
        for name in names:
            out.add(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/"))
    return out


def blob_name(path, data):
    lfs = path.endswith((".safetensors", ".bin", ".onnx"))
    return hashlib.sha256(data).hexdigest() if lfs else git_blob_id(data)


def leftovers(cache):
    """Files under blobs/ that are not finished blobs."""
    return [n for r, _, ns in os.walk(cache) for n in ns
            if n.endswith(".incomplete") or ".tmp" in n]


# ---- A fresh download, and the layout huggingface_hub makes -----------------------------

@online
def test_fresh_download_lays_out_the_cache_as_huggingface_hub(fresh):
    hub, cache = fresh
    p = run(DENSE, "--load", cache=cache, endpoint=hub.url)
    folder, loaded = p.stdout.splitlines()
    repo = storage(cache, DENSE)
    assert folder == os.path.join(repo, "snapshots", DENSE_MAIN)
    assert open(os.path.join(repo, "refs", "main")).read() == DENSE_MAIN
    assert snapshot_files(folder) == DENSE_NEEDED
    source = pipeline_files("st_dense")
    for path in DENSE_NEEDED:
        link = os.path.join(folder, path)
        depth = path.count("/")
        assert os.readlink(link) == "../" * (2 + depth) + "blobs/" + blob_name(path, source[path])
        assert open(link, "rb").read() == source[path]
    assert loaded == "kind=embedding dim=6"  # 3_Dense's out_features
    assert leftovers(cache) == []
    # Only the files needed were asked for, LFS ones from the CDN without a token.
    resolved = {r["path"].split("/resolve/%s/" % DENSE_MAIN)[-1]
                for r in hub.requests("hub", "HEAD")}
    assert resolved == DENSE_NEEDED
    assert {r["path"].split("/")[-1].split("?")[0] for r in hub.requests("cdn", "GET")} == {
        hashlib.sha256(source[p]).hexdigest() for p in DENSE_NEEDED if p.endswith(".safetensors")}


# ---- Offline, and a second call -----------------------------------------------------

@online
def test_cache_hit_offline_asks_nothing(fresh):
    hub, cache = fresh
    folder = run(DENSE, cache=cache, endpoint=hub.url).stdout.strip()
    hub.clear_log()
    for args, env in [((), {"HF_HUB_OFFLINE": "1"}), (("--local-files-only",), {}),
                      ((), {"TRANSFORMERS_OFFLINE": "yes"})]:
        p = run(DENSE, *args, "--load", cache=cache, endpoint=hub.url, env=env)
        assert p.stdout.splitlines()[0] == folder
    assert hub.requests() == []


@online
def test_second_online_call_asks_only_for_the_commit(fresh):
    hub, cache = fresh
    run(DENSE, cache=cache, endpoint=hub.url)
    hub.clear_log()
    run(DENSE, cache=cache, endpoint=hub.url)
    assert [r["path"] for r in hub.requests()] == ["/api/models/%s/revision/main" % DENSE]


def test_offline_without_the_cache_names_what_is_missing(tmp_path):
    cache = str(tmp_path / "cache")
    p = run(DENSE, cache=cache, env={"HF_HUB_OFFLINE": "1"}, check=False)
    assert p.returncode == 1
    assert p.stderr.startswith("TF_ERR_NOT_FOUND: tfenc-test/st-dense at revision main: not in "
                               "the cache, and HF_HUB_OFFLINE keeps the Hub out")
    assert "refs/main: no such file" in p.stderr
    assert not os.path.exists(cache)


@online
def test_an_unreachable_hub_falls_back_to_the_cache(fresh):
    hub, cache = fresh
    folder = run(DENSE, cache=cache, endpoint=hub.url).stdout.strip()
    p = run(DENSE, cache=cache, endpoint="http://127.0.0.1:9")
    assert p.stdout.strip() == folder
    p = run("tfenc-test/not-cached", cache=cache, endpoint="http://127.0.0.1:9", check=False)
    assert p.stderr.startswith("TF_ERR_IO: http://127.0.0.1:9/api/models/tfenc-test/not-cached/"
                               "revision/main: ")
    assert "; and the cache does not have it: " in p.stderr


@online
def test_an_incomplete_snapshot_is_not_taken_offline(fresh):
    hub, cache = fresh
    folder = run(DENSE, cache=cache, endpoint=hub.url).stdout.strip()
    os.unlink(os.path.join(folder, "2_Dense", "config.json"))
    p = run(DENSE, "--local-files-only", cache=cache, check=False)
    assert "2_Dense/config.json: not in the cached snapshot" in p.stderr
    os.unlink(os.path.join(folder, "model.safetensors"))
    p = run(DENSE, "--local-files-only", cache=cache, check=False)
    assert "model.safetensors: not in the cached snapshot" in p.stderr
    # Online, only what is missing is fetched again.
    hub.clear_log()
    run(DENSE, cache=cache, endpoint=hub.url)
    heads = {r["path"].rsplit("/", 1)[-1] for r in hub.requests("hub", "HEAD")}
    assert heads == {"config.json", "model.safetensors"}
    assert hub.requests("cdn") == []  # the blob is still cached: only the link was missing


def lay_out(cache, repo, commit, files, ref="main"):
    """A snapshot as huggingface_hub writes one: blobs, relative links, the ref."""
    base = storage(cache, repo)
    for path, data in files.items():
        blob = os.path.join(base, "blobs", blob_name(path, data))
        os.makedirs(os.path.dirname(blob), exist_ok=True)
        open(blob, "wb").write(data)
        link = os.path.join(base, "snapshots", commit, path)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
    os.makedirs(os.path.join(base, "refs"), exist_ok=True)
    open(os.path.join(base, "refs", ref), "w").write(commit)
    return os.path.join(base, "snapshots", commit)


def test_a_cache_laid_out_by_huggingface_hub_is_read(tmp_path):
    cache = str(tmp_path / "cache")
    files = dict(pipeline_files("st_mean_norm"), **EXTRAS)
    folder = lay_out(cache, DENSE, DENSE_V1, files)
    p = run(DENSE, "--load", cache=cache, env={"HF_HUB_OFFLINE": "1"})
    assert p.stdout.splitlines() == [folder, "kind=embedding dim=16"]


@pytest.mark.skipif(ONLINE, reason="the library has the Hub client")
def test_a_library_without_the_hub_client_reads_the_cache_and_says_so(tmp_path):
    cache = str(tmp_path / "cache")
    p = run(DENSE, cache=cache, endpoint="http://127.0.0.1:9", check=False)
    assert p.stderr.startswith(
        "TF_ERR_UNSUPPORTED: tfenc-test/st-dense at revision main: this libtfenc was built "
        "without the Hub client (meson -Dhub=enabled needs libcurl and libcrypto), so it reads "
        "only what huggingface_hub's cache holds; and the cache does not have it: ")
    folder = lay_out(cache, DENSE, DENSE_V1, pipeline_files("st_mean_norm"))
    assert run(DENSE, cache=cache, endpoint="http://127.0.0.1:9").stdout.strip() == folder


# ---- Revisions --------------------------------------------------------------------------

@online
def test_revision_tag_and_commit(fresh):
    hub, cache = fresh
    p = run(DENSE, "--revision", "v1", "--load", cache=cache, endpoint=hub.url)
    folder = p.stdout.splitlines()[0]
    assert folder.endswith("/snapshots/" + DENSE_V1)
    assert open(os.path.join(storage(cache, DENSE), "refs", "v1")).read() == DENSE_V1
    assert snapshot_files(folder) == {"config.json", "model.safetensors", "vocab.txt",
                                      "tokenizer_config.json", "sentence_bert_config.json",
                                      "1_Pooling/config.json", "config_sentence_transformers.json",
                                      "modules.json"}
    assert not os.path.exists(os.path.join(storage(cache, DENSE), "refs", "main"))
    hub.clear_log()
    for revision in ("v1", DENSE_V1):
        p = run(DENSE, "--revision", revision, cache=cache, env={"HF_HUB_OFFLINE": "1"})
        assert p.stdout.strip() == folder
    p = run(DENSE, "--revision", DENSE_V1, cache=cache, endpoint=hub.url)
    assert p.stdout.strip() == folder
    assert hub.requests("cdn") == []


@online
def test_unknown_revision_is_not_found_and_not_taken_from_the_cache(fresh):
    hub, cache = fresh
    run(DENSE, cache=cache, endpoint=hub.url)
    p = run(DENSE, "--revision", "v9", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith(
        "TF_ERR_NOT_FOUND: the file list of tfenc-test/st-dense at revision v9: HTTP 404 "
        "RevisionNotFound from %s/api/models/tfenc-test/st-dense/revision/v9: no such revision; "
        "the Hub says: Invalid rev id: v9" % hub.url)


# ---- The Hub's errors ----------------------------------------------------------------------

@online
def test_unknown_repository(fresh):
    hub, cache = fresh
    p = run("tfenc-test/nothing", cache=cache, endpoint=hub.url, check=False)
    assert p.returncode == 1
    assert p.stderr.startswith("TF_ERR_NOT_FOUND: the file list of tfenc-test/nothing at revision "
                               "main: HTTP 401 RepoNotFound from ")
    assert "Repository Not Found" in p.stderr and "no token was sent (set HF_TOKEN" in p.stderr
    assert "; and the cache does not have it: " in p.stderr
    assert not os.path.exists(storage(cache, "tfenc-test/nothing"))


@online
def test_private_repository_and_the_token(fresh):
    hub, cache = fresh
    repo = "tfenc-test/private"
    p = run(repo, cache=cache, endpoint=hub.url, check=False)
    assert "HTTP 401 RepoNotFound" in p.stderr and "no token was sent" in p.stderr
    p = run(repo, cache=cache, endpoint=hub.url, env={"HF_TOKEN": "hf_wrong"}, check=False)
    assert p.stderr.startswith("TF_ERR_INVALID_ARGUMENT: ")
    assert "the token sent was refused; the Hub says: Invalid credentials" in p.stderr
    hub.clear_log()
    p = run(repo, "--load", cache=cache, endpoint=hub.url, env={"HF_TOKEN": TOKEN})
    assert p.stdout.splitlines()[1].startswith("kind=embedding")
    assert hub.requests("hub")
    assert all(r["headers"].get("authorization") == "Bearer " + TOKEN for r in hub.requests("hub"))
    assert hub.requests("cdn")
    assert all("authorization" not in r["headers"] for r in hub.requests("cdn"))


@online
def test_token_from_the_token_file_and_options(fresh, tmp_path):
    hub, cache = fresh
    repo = "tfenc-test/private"
    token_file = tmp_path / "hf_home" / "token"
    token_file.parent.mkdir()
    token_file.write_text(TOKEN + "\n")
    run(repo, cache=cache, endpoint=hub.url)
    shutil.rmtree(cache)
    token_file.unlink()
    run(repo, "--token", TOKEN, cache=cache, endpoint=hub.url)
    p = run(repo, "--token", "bad\r\nX-Injected: 1", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_INVALID_ARGUMENT: options.token: the token has a control "
                               "character, space or non-ASCII byte at byte 3")


# ---- Names refused before anything is asked ------------------------------------------

@pytest.mark.parametrize("repo_id,problem", [
    ("../x", "a part that starts or ends with '-' or '.'"),
    ("a/b/c", "more than one '/'"),
    ("", "an empty part"),
    ("org/", "an empty part"),
    ("a--b/c", "\"--\" or \"..\" in it"),
    ("org/name.git", "\".git\" at its end"),
    ("org/na me", "a character other than letters, digits, '-', '_' and '.'"),
])
def test_bad_repo_ids(fresh, repo_id, problem):
    hub, cache = fresh
    p = run(repo_id, cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_INVALID_ARGUMENT: repo_id \"%s\": expected \"name\" or "
                               "\"org/name\"" % repo_id)
    assert p.stderr.rstrip().endswith("got " + problem)
    assert hub.requests() == [] and not os.path.exists(cache)


@pytest.mark.parametrize("revision", ["../../x", "a//b", "/abs", "main/..", "a\tb"])
def test_bad_revisions(fresh, revision):
    hub, cache = fresh
    p = run(DENSE, "--revision", revision, cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_INVALID_ARGUMENT: options.revision \"%s\": not a branch, "
                               "tag or commit: " % revision)
    assert hub.requests() == [] and not os.path.exists(cache)


def test_bad_endpoint_and_short_buffer(fresh):
    hub, cache = fresh
    p = run(DENSE, cache=cache, endpoint="ftp://127.0.0.1", check=False)
    assert p.stderr.startswith("TF_ERR_INVALID_ARGUMENT: HF_ENDPOINT \"ftp://127.0.0.1\": expected "
                               "an http:// or https:// URL")
    p = run(DENSE, "--cache-dir", "x" * 5000, cache=cache, check=False)
    assert "options.cache_dir: the cache folder's path is 5000 bytes" in p.stderr


@online
def test_dir_too_small_keeps_the_download(fresh):
    hub, cache = fresh
    p = run(DENSE, "--size", "10", cache=cache, endpoint=hub.url, check=False)
    folder = os.path.join(storage(cache, DENSE), "snapshots", DENSE_MAIN)
    assert p.stderr.splitlines()[1] == "needed=%d" % len(folder)
    assert p.stderr.splitlines()[0] == (
        "TF_ERR_INVALID_ARGUMENT: dir: 10 bytes, and the folder's path needs %d with its NUL: %s"
        % (len(folder) + 1, folder))
    assert run(DENSE, "--local-files-only", cache=cache).stdout.strip() == folder


# ---- What the server sends, checked ---------------------------------------------------------

def model_sha(name="st_dense", path="model.safetensors"):
    return hashlib.sha256(pipeline_files(name)[path]).hexdigest()


@online
def test_a_dropped_connection_is_resumed_with_range(fresh):
    hub, cache = fresh
    sha = model_sha()
    size = len(pipeline_files("st_dense")["model.safetensors"])
    hub.faults.drops[sha] = [size // 3]
    p = run(DENSE, "--load", cache=cache, endpoint=hub.url)
    gets = [r for r in hub.requests("cdn", "GET") if sha in r["path"]]
    assert [g["headers"].get("range") for g in gets] == [None, "bytes=%d-" % (size // 3)]
    blob = os.path.join(storage(cache, DENSE), "blobs", sha)
    assert hashlib.sha256(open(blob, "rb").read()).hexdigest() == sha
    assert p.stdout.splitlines()[1].startswith("kind=embedding")
    assert leftovers(cache) == []


@online
def test_a_download_broken_for_good_is_kept_and_resumed_by_the_next_call(fresh):
    hub, cache = fresh
    sha = model_sha()
    size = len(pipeline_files("st_dense")["model.safetensors"])
    hub.faults.drops[sha] = [size // 2] + [0] * 5
    p = run(DENSE, cache=cache, endpoint=hub.url, check=False)
    incomplete = os.path.join(storage(cache, DENSE), "blobs", sha + ".incomplete")
    assert p.stderr.startswith("TF_ERR_IO: ")
    assert ("the connection broke 5 times in a row without a byte; the %d bytes so far are kept "
            "in %s and the next call resumes them" % (size // 2, incomplete)) in p.stderr
    assert os.path.getsize(incomplete) == size // 2
    assert not os.path.exists(os.path.join(storage(cache, DENSE), "refs", "main"))
    hub.clear_log()
    run(DENSE, "--load", cache=cache, endpoint=hub.url)
    gets = [r for r in hub.requests("cdn", "GET") if sha in r["path"]]
    assert [g["headers"].get("range") for g in gets] == ["bytes=%d-" % (size // 2)]
    assert leftovers(cache) == []


@online
def test_a_server_that_ignores_range_starts_over(fresh):
    hub, cache = fresh
    sha = model_sha()
    size = len(pipeline_files("st_dense")["model.safetensors"])
    hub.faults.drops[sha] = [size // 2]
    hub.faults.ignore_range.add(sha)
    run(DENSE, "--load", cache=cache, endpoint=hub.url)
    blob = os.path.join(storage(cache, DENSE), "blobs", sha)
    assert hashlib.sha256(open(blob, "rb").read()).hexdigest() == sha


@online
def test_a_corrupted_lfs_file_is_refused_and_nothing_kept(fresh):
    hub, cache = fresh
    sha = model_sha(path="2_Dense/model.safetensors")
    hub.faults.corrupt.add(sha)
    p = run(DENSE, cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith(
        "TF_ERR_FORMAT: tfenc-test/st-dense: 2_Dense/model.safetensors: the ")
    assert "have sha256 " in p.stderr and ("but its ETag (the LFS file's sha256) is %s: refused, "
                                           "nothing kept" % sha) in p.stderr
    blobs = os.path.join(storage(cache, DENSE), "blobs")
    assert not any(n.startswith(sha) for n in os.listdir(blobs))
    assert not os.path.lexists(os.path.join(storage(cache, DENSE), "snapshots", DENSE_MAIN,
                                            "2_Dense", "model.safetensors"))
    assert not os.path.exists(os.path.join(storage(cache, DENSE), "refs", "main"))
    hub.faults.corrupt.clear()
    run(DENSE, "--load", cache=cache, endpoint=hub.url)


@online
@pytest.mark.parametrize("delta,message", [
    (-10, "the server sends more than the %d bytes it announced"),
    (+10, "the server ended the file after %d of the %d bytes it announced"),
])
def test_sizes_that_lie_are_refused(fresh, delta, message):
    hub, cache = fresh
    sha = model_sha()
    size = len(pipeline_files("st_dense")["model.safetensors"])
    hub.faults.announce[sha] = size + delta
    p = run(DENSE, cache=cache, endpoint=hub.url, check=False)
    expected = message % ((size - 10,) if delta < 0 else (size, size + 10))
    assert p.stderr.startswith("TF_ERR_FORMAT: tfenc-test/st-dense: model.safetensors: " + expected)
    assert leftovers(cache) == []
    assert not os.path.exists(os.path.join(storage(cache, DENSE), "blobs", sha))


@online
@pytest.mark.parametrize("etag", ['"../../../../evil"', '"a/b"', '""', '".hidden"'])
def test_etags_that_are_no_blob_names_are_refused(fresh, etag):
    hub, cache = fresh
    hub.faults.etag["model.safetensors"] = etag
    p = run(DENSE, cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_FORMAT: tfenc-test/st-dense: model.safetensors at commit "
                               "%s: X-Linked-Etag %s: not a name a blob can have"
                               % (DENSE_MAIN, etag))
    assert leftovers(cache) == []
    assert not os.path.exists(os.path.join(os.path.dirname(cache), "evil"))


@online
def test_module_paths_and_shards_that_leave_the_folder_are_refused(fresh):
    hub, cache = fresh
    p = run("tfenc-test/evil-modules", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith('TF_ERR_FORMAT: modules.json[1]: the name "../../evil" is not a '
                               'path inside the repository\'s folder: it has a "." or ".." part')
    p = run("tfenc-test/evil-index", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith('TF_ERR_FORMAT: model.safetensors.index.json: the name '
                               '"../../../evil.safetensors" is not a path inside')
    p = run("tfenc-test/missing-shard", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_FORMAT: model.safetensors.index.json: names the shard "
                               "model-00009-of-00009.safetensors, which the repository does not "
                               "have")


@online
def test_sharded_weights_fetch_the_index_and_its_shards(fresh):
    hub, cache = fresh
    folder = run("tfenc-test/sharded", cache=cache, endpoint=hub.url).stdout.strip()
    assert snapshot_files(folder) == {"config.json", "vocab.txt", "model.safetensors.index.json",
                                      "model-00001-of-00002.safetensors",
                                      "model-00002-of-00002.safetensors"}
    assert run("tfenc-test/sharded", "--local-files-only", cache=cache).stdout.strip() == folder
    os.unlink(os.path.join(folder, "model-00002-of-00002.safetensors"))
    p = run("tfenc-test/sharded", "--local-files-only", cache=cache, check=False)
    assert "model-00002-of-00002.safetensors: not in the cached snapshot" in p.stderr


@online
def test_a_router_fetches_its_config_and_route_folders(fresh):
    hub, cache = fresh
    p = run(ROUTER, "--load", cache=cache, endpoint=hub.url)
    folder, loaded = p.stdout.splitlines()
    assert snapshot_files(folder) == ROUTER_NEEDED
    assert loaded == "kind=sparse-embedding dim=%d" % json.load(
        open(os.path.join(DATA, "sparse", "opensearch_doc_v2", "config.json")))["vocab_size"]
    offline = run(ROUTER, "--local-files-only", "--load", cache=cache)
    assert offline.stdout.splitlines() == [folder, loaded]
    # A snapshot without a route folder's file is not taken offline.
    os.unlink(os.path.join(folder, "document_1_SpladePooling", "config.json"))
    p = run(ROUTER, "--local-files-only", cache=cache, check=False)
    assert "document_1_SpladePooling/config.json: not in the cached snapshot" in p.stderr
    os.unlink(os.path.join(folder, "router_config.json"))
    p = run(ROUTER, "--local-files-only", cache=cache, check=False)
    assert "router_config.json: not in the cached snapshot" in p.stderr


@online
def test_a_vision_folder_fetches_its_preprocessor_config(fresh):
    hub, cache = fresh
    p = run(VISION, "--load", cache=cache, endpoint=hub.url)
    folder, loaded = p.stdout.splitlines()
    assert snapshot_files(folder) == VISION_NEEDED
    assert loaded == "kind=image-embedding dim=%d" % json.load(
        open(os.path.join(DATA, "image_pipeline", "vit_model", "config.json")))["hidden_size"]


@online
def test_a_model_in_a_module_folder_alone_is_fetched(fresh):
    hub, cache = fresh
    p = run(ST_CLIP, "--load", cache=cache, endpoint=hub.url)
    folder, loaded = p.stdout.splitlines()
    assert snapshot_files(folder) == ST_CLIP_NEEDED
    assert loaded == "kind=image-embedding dim=%d" % json.load(open(os.path.join(
        DATA, "image_pipeline", "st_clip", "0_CLIPModel", "config.json")))["projection_dim"]
    assert run(ST_CLIP, "--local-files-only", cache=cache).stdout.strip() == folder
    os.unlink(os.path.join(folder, "0_CLIPModel", "model.safetensors"))
    p = run(ST_CLIP, "--local-files-only", cache=cache, check=False)
    assert "0_CLIPModel/model.safetensors: not in the cached snapshot" in p.stderr


# ---- Progress, cancel, and two downloads at once -------------------------------------------

def progress_lines(stderr):
    return [dict(kv.split("=", 1) for kv in line.split()[1:])
            for line in stderr.splitlines() if line.startswith("progress ")]


@online
def test_progress_counts_every_byte(fresh):
    hub, cache = fresh
    p = run(DENSE, "--progress", cache=cache, endpoint=hub.url)
    lines = progress_lines(p.stderr)
    source = pipeline_files("st_dense")
    big = [n for n in DENSE_NEEDED if n != "modules.json"]  # modules.json is fetched first
    last = lines[-1]
    assert int(last["total"]) == sum(len(source[n]) for n in big)
    assert int(last["bytes"]) == int(last["total"])
    assert int(last["count"]) == len(big) and int(last["index"]) == len(big) - 1
    assert all(int(a["bytes"]) <= int(b["bytes"]) for a, b in zip(lines, lines[1:])
               if a["count"] == b["count"])


@online
def test_cancel_from_the_progress_callback(fresh):
    hub, cache = fresh
    sha = model_sha()
    hub.faults.throttle = 0.001
    p = run(DENSE, "--cancel-after", "1", cache=cache, endpoint=hub.url, check=False)
    assert p.stderr.startswith("TF_ERR_IO: ") and "cancelled by the progress callback" in p.stderr
    assert not os.path.exists(os.path.join(storage(cache, DENSE), "blobs", sha))


@online
def test_two_processes_download_each_blob_once(fresh):
    hub, cache = fresh
    hub.faults.throttle = 0.002
    results = []

    def one():
        results.append(run(DENSE, "--load", cache=cache, endpoint=hub.url, check=False))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    gets = [r["path"].split("?")[0] for r in hub.requests("cdn", "GET")]
    assert sorted(gets) == sorted(set(gets))
    assert leftovers(cache) == []


# ---- The cache shared with @huggingface/hub (npm) -------------------------------------------

NPM_DIR = os.environ.get("TFENC_HUB_NPM_DIR")
HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def hfjs():
    """The script of hf_js_cache.mjs, with @huggingface/hub installed beside it (npm ci)."""
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        pytest.skip("npm or node is not installed: the cache shared with @huggingface/hub is "
                    "not checked")
    folder = NPM_DIR or os.path.join(HERE, "..", "..", "build-hub-npm")
    os.makedirs(folder, exist_ok=True)
    for name in ("package.json", "package-lock.json", "hf_js_cache.mjs"):
        shutil.copy(os.path.join(HERE, name), folder)
    installed = os.path.join(folder, "node_modules", "@huggingface", "hub", "package.json")
    if not os.path.exists(installed) or json.load(open(installed))["version"] != "2.17.5":
        p = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
    return os.path.join(folder, "hf_js_cache.mjs")


def node(script, *args):
    p = subprocess.run(["node", script, *args], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


@online
def test_a_folder_huggingface_js_downloaded_is_found_offline(fresh, hfjs):
    hub, cache = fresh
    folder = node(hfjs, "download", hub.url, cache, DENSE, "main").strip()
    assert folder == os.path.join(storage(cache, DENSE), "snapshots", DENSE_MAIN)
    hub.clear_log()
    p = run(DENSE, "--load", cache=cache, env={"HF_HUB_OFFLINE": "1"})
    assert p.stdout.splitlines() == [folder, p.stdout.splitlines()[1]]
    assert p.stdout.splitlines()[1].startswith("kind=embedding")
    p = run(DENSE, "--revision", DENSE_MAIN, cache=cache, env={"HF_HUB_OFFLINE": "1"})
    assert p.stdout.strip() == folder
    assert hub.requests() == []


@online
def test_a_folder_tfenc_downloaded_is_found_by_huggingface_js(fresh, hfjs):
    hub, cache = fresh
    folder = run(DENSE, cache=cache, endpoint=hub.url).stdout.strip()
    found = json.loads(node(hfjs, "find", cache, DENSE, DENSE_MAIN, *sorted(DENSE_NEEDED)))
    assert found["files"] == {f: os.path.join(folder, f) for f in DENSE_NEEDED}
    assert found["warnings"] == []
    [repo] = found["repos"]
    assert repo["name"] == DENSE and repo["type"] == "model"
    [revision] = repo["revisions"]
    assert revision["commitOid"] == DENSE_MAIN and revision["refs"] == ["main"]
    source = pipeline_files("st_dense")
    top = {os.path.basename(f["path"]): f for f in revision["files"]}
    for name, f in top.items():  # scanCacheDir lists the top folder's files
        assert f["blob"] == os.path.join(storage(cache, DENSE), "blobs",
                                         blob_name(name, source[name]))
        assert f["size"] == len(source[name])
