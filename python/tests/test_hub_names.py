"""Models by name from Python: SentenceTransformer, CrossEncoder, Classifier and
TokenClassifier take a Hugging Face Hub id as sentence-transformers does (revision=,
cache_folder=, token=, local_files_only=; a bare name is sentence-transformers' unless a folder
of that name exists), resolved by tf_hub_resolve against a Hub on 127.0.0.1 (tests/hub/
fake_hub.py, with the repositories tests/hub/test_hub.py makes); the README's
"models by name" example runs against a Hub id resolved from the cache offline."""
import ctypes
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA, ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "hub"))
import test_hub  # noqa: E402
from fake_hub import FakeHub, Faults, Repo, make_commit  # noqa: E402

test_hub.DATA = DATA  # where make_repos reads the folders it serves

import tfenc  # noqa: E402
from tfenc import hub as tfenc_hub  # noqa: E402

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
CROSS = "cross-encoder/tiny-reranker"
CLASSIFIER = "tfenc-test/classifier"
TOKENS = "tfenc-test/token-classifier"
PRIVATE = "tfenc-test/private"
TEXTS = ["The weather is lovely today.", "It's so sunny outside!"]


def pipeline(name):
    return os.path.join(DATA, "pipelines", name)


def repo(repo_id, folder):
    commit = make_commit(repo_id, "main")
    return Repo(repo_id, {commit: test_hub.folder_files(folder)}, {"main": commit})


@pytest.fixture(scope="module")
def hub():
    server = FakeHub(test_hub.make_repos() + [
        repo(MINILM, pipeline("st_minilm")), repo(CROSS, pipeline("cross_encoder")),
        repo(CLASSIFIER, pipeline("classifier")),
        repo(TOKENS, os.path.join(DATA, "families", "bert_token_classifier"))])
    yield server
    server.close()


@pytest.fixture
def env(hub, tmp_path, monkeypatch):
    """The hub as HF_ENDPOINT, a cache of this test's own as HF_HUB_CACHE, no other Hub
    setting, and an empty working folder (where no Hub id is a path)."""
    hub.faults = Faults()
    hub.clear_log()
    for k in list(os.environ):
        if k.startswith(("HF_", "HUGGING", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_")):
            monkeypatch.delenv(k)
    cache = tmp_path / "cache"
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    return str(cache)


@pytest.fixture(scope="module")
def online(hub, tmp_path_factory):
    """Skips unless the library can download (built with the Hub client)."""
    try:
        tfenc_hub.resolve(MINILM, endpoint=hub.url,
                          cache_folder=str(tmp_path_factory.mktemp("probe")))
    except tfenc.UnsupportedError as e:
        pytest.skip(f"the library was built without the Hub client: {e}")


def test_the_hub_structs_mirror_the_librarys():
    from tfenc import _lib
    for mirror in (tfenc_hub.HubOptions, tfenc_hub.HubProgress):
        assert _lib.lib.tf_struct_size(mirror.c_name.encode()) == ctypes.sizeof(mirror) > 0
    o = _lib.new(tfenc_hub.HubOptions)
    assert o.struct_size == ctypes.sizeof(o) and not o.revision and o.local_files_only == 0


def test_sentence_transformer_by_id_gives_the_folders_vectors(online, env, hub):
    with tfenc.SentenceTransformer(MINILM) as by_id, \
            tfenc.SentenceTransformer(pipeline("st_minilm")) as local:
        np.testing.assert_array_equal(by_id.encode(TEXTS), local.encode(TEXTS))
        assert by_id.tokenizer.vocab_size == local.tokenizer.vocab_size
    folder = os.path.join(env, "models--sentence-transformers--all-MiniLM-L6-v2", "snapshots",
                          make_commit(MINILM, "main"))
    assert os.path.isfile(os.path.join(folder, "model.safetensors"))


def test_a_bare_name_is_sentence_transformers_unless_a_folder_has_it(online, env, tmp_path):
    with tfenc.SentenceTransformer("all-MiniLM-L6-v2") as by_name:
        assert by_name.get_sentence_embedding_dimension() == 16  # st_minilm's
    os.symlink(pipeline("st_dense"), "all-MiniLM-L6-v2")  # a folder of that name wins
    with tfenc.SentenceTransformer("all-MiniLM-L6-v2") as folder:
        assert folder.get_sentence_embedding_dimension() == 6
    # CrossEncoder, as upstream's, puts no organisation before a bare name
    with pytest.raises(tfenc.NotFoundError, match="^tiny-reranker: no such folder; as a Hub id: "):
        tfenc.CrossEncoder("tiny-reranker")


def test_cross_encoder_classifier_and_token_classifier_by_id(online, env):
    pair = ("how many legs does a dog have?", "a dog has four legs.")
    with tfenc.CrossEncoder(CROSS) as by_id, tfenc.CrossEncoder(pipeline("cross_encoder")) as ce:
        assert by_id.predict(pair) == ce.predict(pair)
    with tfenc.Classifier(CLASSIFIER) as by_id, tfenc.Classifier(pipeline("classifier")) as c:
        assert by_id("i liked the movie.") == c("i liked the movie.")
    local = os.path.join(DATA, "families", "bert_token_classifier")
    with tfenc.TokenClassifier(TOKENS) as by_id, tfenc.TokenClassifier(local) as t:
        assert by_id("Alice lives in Paris") == t("Alice lives in Paris")


def test_revision_cache_folder_and_offline(online, env, hub, tmp_path):
    with tfenc.SentenceTransformer(test_hub.DENSE, revision="v1") as v1, \
            tfenc.SentenceTransformer(pipeline("st_mean_norm")) as local:
        np.testing.assert_array_equal(v1.encode(TEXTS), local.encode(TEXTS))
    own = tmp_path / "own"
    tfenc.CrossEncoder(CROSS, cache_folder=str(own)).close()
    assert os.path.isdir(own / "models--cross-encoder--tiny-reranker")
    hub.clear_log()
    os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"  # nothing there (monkeypatch restores it)
    tfenc.CrossEncoder(CROSS, cache_folder=str(own), local_files_only=True).close()
    tfenc.SentenceTransformer(test_hub.DENSE, revision="v1", local_files_only=True).close()
    assert hub.requests() == []
    with pytest.raises(tfenc.NotFoundError, match=re.escape(
            f"{CLASSIFIER}: no such folder; as a Hub id: {CLASSIFIER} at revision main: not in "
            "the cache, and options.local_files_only keeps the Hub out: ")):
        tfenc.Classifier(CLASSIFIER, local_files_only=True)


def test_sentence_transformers_home_is_the_cache(online, env, tmp_path, monkeypatch):
    home = tmp_path / "st_home"
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(home))
    tfenc.SentenceTransformer(MINILM).close()
    assert os.path.isdir(home / "models--sentence-transformers--all-MiniLM-L6-v2")
    assert not os.path.exists(env)


def test_token(online, env):
    with pytest.raises(tfenc.NotFoundError, match="RepoNotFound"):
        tfenc.SentenceTransformer(PRIVATE)
    with pytest.raises(tfenc.InvalidArgumentError, match="the token sent was refused"):
        tfenc.SentenceTransformer(PRIVATE, token="hf_wrong")
    tfenc.SentenceTransformer(PRIVATE, token=test_hub.TOKEN).close()
    for wrong in (1, b"hf_bytes"):
        with pytest.raises(TypeError, match="^token: expected a str, True, False or None, got "):
            tfenc.SentenceTransformer(PRIVATE, token=wrong)


def test_names_that_are_neither_and_bad_arguments(env):
    with pytest.raises(tfenc.FileError, match=re.escape(
            "./no/such: no such folder, and not a Hub id (expected \"name\" or \"org/name\" "
            "of letters, digits, '-', '_' and '.' (as huggingface_hub's validate_repo_id), got "
            "more than one '/')")):
        tfenc.SentenceTransformer("./no/such")
    with pytest.raises(tfenc.InvalidArgumentError, match=re.escape(
            "org/name: no such folder; as a Hub id: options.revision \"../x\": not a branch, "
            "tag or commit: it has a \".\" or \"..\" part")):
        tfenc.CrossEncoder("org/name", revision="../x")
    with pytest.raises(ValueError, match="^revision: a NUL character"):
        tfenc.SentenceTransformer("org/name", revision="a\0b")
    with pytest.raises(TypeError, match="^local_files_only: expected a bool"):
        tfenc.SentenceTransformer("org/name", local_files_only="yes")
    with pytest.raises(TypeError, match="^model_name_or_path: expected a path"):
        tfenc.SentenceTransformer(5)


def test_progress_and_an_error_in_it(online, env, capsys, monkeypatch):
    tfenc.SentenceTransformer(MINILM, cache_folder=env + "-plain").close()
    assert capsys.readouterr().err == ""  # no terminal: no bar
    bars = []

    def recorder(total, show, desc):
        assert show is True and desc == f"Downloading {MINILM}"
        bars.append(Recorder(total))
        return bars[-1]
    monkeypatch.setattr(tfenc_hub, "progress", recorder)
    folder = tfenc_hub.resolve(MINILM, show_progress_bar=True)
    assert os.path.isdir(folder)
    # a bar for each batch of files the library fetches, each told every byte, then closed
    assert bars and all(b.done == b.total and b.closed for b in bars)
    on_disk = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in
                  os.walk(os.path.join(env, "models--sentence-transformers--all-MiniLM-L6-v2",
                                       "blobs")) for n in ns)
    assert sum(b.total for b in bars) == on_disk

    class Stop(Exception):
        pass

    def stop(*args, **kwargs):
        raise Stop("from the bar")
    monkeypatch.setattr(tfenc_hub, "progress", stop)
    with pytest.raises(Stop):
        tfenc_hub.resolve(CROSS, show_progress_bar=True)
    assert not os.path.exists(os.path.join(env, "models--cross-encoder--tiny-reranker", "refs"))


class Recorder:
    """_progress's bar, recording the bytes it is told."""

    def __init__(self, total):
        self.total, self.done, self.closed = total, 0, False

    def update(self, n):
        self.done += n

    def close(self):
        self.closed = True


def test_pytorch_bin_only_repository_is_refused(online, env, hub):
    commit = make_commit("tfenc-test/bin-only", "main")
    files = {k: v for k, v in test_hub.folder_files(pipeline("st_minilm")).items()
             if k != "model.safetensors"}
    hub.repos["tfenc-test/bin-only"] = Repo("tfenc-test/bin-only", {
        commit: dict(files, **{"pytorch_model.bin": b"\x80\x02"})}, {"main": commit})
    with pytest.raises(tfenc.UnsupportedError, match=re.escape(
            f"tfenc-test/bin-only at revision main (commit {commit}): pytorch_model.bin but no "
            "model.safetensors: libtfenc reads safetensors only")):
        tfenc.SentenceTransformer("tfenc-test/bin-only")


README_EXAMPLE = "readme-python-hub"


def readme_block(marker):
    """The ```python block after <!-- marker --> in README.md."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    after = text[text.index(f"<!-- {marker} -->"):]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_readme_example_runs_offline_from_the_cache(online, env):
    """README's example by its Hub id, offline from the cache a first run filled, prints
    what it prints with the id replaced by the folder the repository holds."""
    script = readme_block(README_EXAMPLE)
    assert f'"{MINILM}"' in script
    tfenc.SentenceTransformer(MINILM).close()  # the cache filled, as a first run would
    run_env = dict(os.environ, HF_HUB_OFFLINE="1", HF_ENDPOINT="http://127.0.0.1:9",
                   PYTHONPATH=os.path.join(ROOT, "python"))
    runs = [subprocess.run([sys.executable, "-c", s], env=run_env, capture_output=True,
                           text=True, timeout=300)
            for s in (script, script.replace(f'"{MINILM}"', repr(pipeline("st_minilm"))))]
    for p in runs:
        assert p.returncode == 0 and p.stderr == "", p.stderr
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.startswith("(2, 16)")
