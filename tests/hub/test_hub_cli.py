"""tfenc's --model as a Hugging Face Hub id, against a Hub on 127.0.0.1 (fake_hub.py, with the
repositories test_hub.py makes): embed, rerank and serve by id give what the folder gives;
--revision, --offline and HF_HUB_OFFLINE; the progress bar; a name that is neither a folder nor
an id, and an id the Hub does not have, said with the library's message; a repository with
pytorch_model.bin and no model.safetensors refused before anything is downloaded, in the words
the folder's loader uses for such a folder.

Environment (tests/hub/meson.build sets it): TFENC_CLI (the tfenc program), TFENC_SERVE
("true" when tfenc serve is built), TFENC_HUB_RESOLVE (test_hub.py's driver), TFENC_DATA_DIR,
TFENC_HUB_ONLINE.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_hub  # noqa: E402
from fake_hub import FakeHub, Faults, Repo, make_commit  # noqa: E402
from test_hub import DENSE, DENSE_MAIN, lay_out, make_repos, pipeline_files, storage  # noqa: E402

TFENC = os.environ.get("TFENC_CLI")
SERVE = os.environ.get("TFENC_SERVE") == "true"
DATA = test_hub.DATA

pytestmark = [pytest.mark.skipif(not TFENC, reason="TFENC_CLI is not set"),
              pytest.mark.skipif(not test_hub.ONLINE,
                                 reason="the library was built without the Hub client")]

CROSS = "tfenc-test/cross-encoder"
BIN_ONLY = "tfenc-test/bin-only"
DENSE_BIN = "tfenc-test/dense-bin"
PICKLE = b"\x80\x02 a pickle, never read"
# What both the folder's loader and the Hub client say of PyTorch's pickle, after
# "<where>: pytorch_model.bin but no model.safetensors: " (lib/common/weights_files.h).
HINT_START = "libtfenc reads safetensors only (reading a pickle can run code). Convert it once: "


def bin_only(files):
    """files with model.safetensors replaced by a pytorch_model.bin."""
    out = {k: v for k, v in files.items() if k != "model.safetensors"}
    out["pytorch_model.bin"] = PICKLE
    return out


def cli_repos():
    dense_bin = {k: v for k, v in pipeline_files("st_dense").items()
                 if k != "2_Dense/model.safetensors"}
    dense_bin["2_Dense/pytorch_model.bin"] = PICKLE
    extra = [(CROSS, pipeline_files("cross_encoder")),
             (BIN_ONLY, bin_only(pipeline_files("st_minilm"))), (DENSE_BIN, dense_bin)]
    return make_repos() + [Repo(r, {make_commit(r, "main"): f}, {"main": make_commit(r, "main")})
                           for r, f in extra]


@pytest.fixture(scope="module")
def hub():
    server = FakeHub(cli_repos())
    yield server
    server.close()


@pytest.fixture
def env(hub, tmp_path):
    """The environment of a tfenc run against the hub, a cache of this test's own; the runs
    start in an empty folder, where no Hub id is a path."""
    hub.faults = Faults()
    hub.clear_log()
    (tmp_path / "cwd").mkdir()
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("HF_", "HUGGING", "TRANSFORMERS_", "XDG_"))}
    e.update({"HF_HUB_CACHE": str(tmp_path / "cache"), "HF_ENDPOINT": hub.url,
              "HOME": str(tmp_path), "HF_HOME": str(tmp_path / "hf_home")})
    return e


def tfenc(env, *args, status=0, extra=None):
    """tfenc ARGS in the test's empty folder; stdout and stderr as bytes decoded (a carriage
    return kept)."""
    p = subprocess.run([TFENC, *args], env=dict(env, **(extra or {})), capture_output=True,
                       timeout=300, cwd=os.path.join(env["HOME"], "cwd"))
    p.stdout, p.stderr = p.stdout.decode(), p.stderr.decode()
    assert p.returncode == status, p.stderr
    return p


def folder(name):
    return os.path.join(DATA, "pipelines", name)


def test_embed_and_rerank_by_id_give_the_folders_numbers(hub, env):
    by_id = tfenc(env, "embed", "--model", DENSE, "--json", "hello world", "a second text")
    local = tfenc(env, "embed", "--model", folder("st_dense"), "--json", "hello world",
                  "a second text")
    assert by_id.stdout == local.stdout and json.loads(by_id.stdout)["dim"] == 6
    assert by_id.stderr == ""  # stderr is no terminal: no bar
    args = ["how many legs does a dog have?", "a dog has four legs.", "the sky is blue."]
    assert tfenc(env, "rerank", "--model", CROSS, *args).stdout == \
        tfenc(env, "rerank", "--model", folder("cross_encoder"), *args).stdout


def test_offline_after_the_download_asks_nothing(hub, env):
    first = tfenc(env, "embed", "--model", DENSE, "hello")
    hub.clear_log()
    dead = {"HF_ENDPOINT": "http://127.0.0.1:9"}
    assert tfenc(env, "embed", "--model", DENSE, "--offline", "hello", extra=dead).stdout == \
        first.stdout
    assert tfenc(env, "embed", "--model", DENSE, "hello",
                 extra=dict(dead, HF_HUB_OFFLINE="1")).stdout == first.stdout
    assert hub.requests() == []
    p = tfenc(env, "embed", "--model", CROSS, "--offline", "hello", status=2)
    assert p.stderr.startswith(
        "tfenc embed: --model tfenc-test/cross-encoder: no such folder; as a Hub id: "
        "tfenc-test/cross-encoder at revision main: not in the cache, and "
        "options.local_files_only keeps the Hub out: ")


def test_revision(hub, env):
    v1 = tfenc(env, "embed", "--model", DENSE, "--revision", "v1", "hello")
    assert v1.stdout == tfenc(env, "embed", "--model", folder("st_mean_norm"), "hello").stdout
    p = tfenc(env, "embed", "--model", folder("st_dense"), "--revision", "v1", "hello",
              status=2)
    assert p.stderr == ("tfenc embed: --revision v1: --model %s is on disk, which has no "
                        "revisions (a Hub id's)\n" % folder("st_dense"))


def resolve_error(env, repo):
    """The library's message for repo, from test_hub.py's driver's line
    "TF_ERR_...: message"."""
    p = subprocess.run([test_hub.HUB_RESOLVE, repo], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 1
    return p.stderr.splitlines()[0].split(": ", 1)[1]


def test_an_id_the_hub_does_not_have_exits_2_with_the_librarys_message(hub, env):
    for command in (["embed", "--model", "tfenc-test/nothing", "hello"],
                    ["classify", "--model", "tfenc-test/nothing", "hello"]):
        p = tfenc(env, *command, status=2)
        assert p.stderr == ("tfenc %s: --model tfenc-test/nothing: no such folder; as a Hub "
                            "id: %s\n" % (command[0], resolve_error(env, "tfenc-test/nothing")))
    assert "RepoNotFound" in p.stderr


def test_a_name_that_is_neither_a_folder_nor_an_id(env):
    for name, problem in [("./no/such", "more than one '/'"),
                          ("no such", "a character other than letters, digits, '-', '_' and "
                                      "'.'")]:
        p = tfenc(env, "embed", "--model", name, "hello", status=2)
        assert p.stderr == (
            "tfenc embed: --model %s: no such folder, and not a Hub id (expected \"name\" or "
            "\"org/name\" of letters, digits, '-', '_' and '.' (as huggingface_hub's "
            "validate_repo_id), got %s)\n" % (name, problem))


def test_the_progress_bar(hub, env):
    p = tfenc(env, "embed", "--model", DENSE, "--progress", "hello")
    job = "\rtfenc embed: 1 of 1 texts (100%)\n"  # --progress: the job's line after the download's
    assert p.stderr.endswith(job)
    download = p.stderr[:-len(job)]
    lines = download.split("\r")
    assert lines[0] == "" and download.endswith("\n") and download.count("\n") == 1
    assert all(line.startswith("tfenc embed: tfenc-test/st-dense: ") for line in lines[1:])
    last = re.fullmatch(r".*\(file (\d+) of (\d+)\), ([\d.]+) of ([\d.]+) MB \(100%\)\s*",
                        lines[-1], re.S)
    assert last and last[1] == last[2] and last[3] == last[4], lines[-1]
    # a cached one downloads nothing: no download bar, the job's line only; --no-progress: none
    assert tfenc(env, "embed", "--model", DENSE, "--progress", "hello").stderr == job
    args = ["rerank", "--model", CROSS, "--no-progress", "a query", "a document"]
    assert tfenc(env, *args).stderr == ""


def test_pytorch_bin_is_refused_before_downloading_in_the_loaders_words(hub, env, tmp_path):
    commit = make_commit(BIN_ONLY, "main")
    p = tfenc(env, "embed", "--model", BIN_ONLY, "hello", status=1)
    prefix = ("tfenc embed: --model %s: no such folder; as a Hub id: %s at "
              "revision main (commit %s): pytorch_model.bin but no model.safetensors: "
              % (BIN_ONLY, BIN_ONLY, commit))
    assert p.stderr.startswith(prefix + HINT_START), p.stderr
    hub_hint = p.stderr[len(prefix):]
    assert [r["path"] for r in hub.requests()] == ["/api/models/%s/revision/main" % BIN_ONLY]
    assert not os.path.exists(storage(env["HF_HUB_CACHE"], BIN_ONLY))
    # the folder's loader: the same words
    local = tmp_path / "local"
    local.mkdir()
    for name, data in bin_only(pipeline_files("st_minilm")).items():
        (local / name).parent.mkdir(exist_ok=True)
        (local / name).write_bytes(data)
    p = tfenc(env, "embed", "--model", str(local), "hello", status=1)
    assert p.stderr == "tfenc embed: %s: pytorch_model.bin but no " \
        "model.safetensors: %s" % (local, hub_hint)
    # a Dense module's pickle, online and offline (a cache huggingface_hub filled)
    hub.clear_log()
    p = tfenc(env, "embed", "--model", DENSE_BIN, "hello", status=1)
    assert ("%s/2_Dense at revision main (commit %s): pytorch_model.bin but no "
            "model.safetensors: %s" % (DENSE_BIN, make_commit(DENSE_BIN, "main"), hub_hint)) \
        in p.stderr
    # only modules.json, which names 2_Dense, was fetched
    assert [r["path"].rsplit("/", 1)[-1] for r in hub.requests("hub", "HEAD")] == \
        ["modules.json"] and hub.requests("cdn") == []
    lay_out(env["HF_HUB_CACHE"], BIN_ONLY, commit, bin_only(pipeline_files("st_minilm")))
    p = tfenc(env, "embed", "--model", BIN_ONLY, "--offline", "hello", status=1)
    assert ("%s at revision main (commit %s): pytorch_model.bin but no model.safetensors: %s"
            % (BIN_ONLY, commit, hub_hint)) in p.stderr


@pytest.mark.skipif(not SERVE, reason="tfenc serve is not built")
def test_serve_by_id(hub, env, tmp_path):
    port_file = tmp_path / "port"
    server = subprocess.Popen([TFENC, "serve", "--model", DENSE, "--port", "0", "--port-file",
                               str(port_file)], env=env, stderr=subprocess.PIPE, text=True,
                              cwd=os.path.join(env["HOME"], "cwd"))
    try:
        for _ in range(600):
            if port_file.exists() and port_file.read_text().endswith("\n"):
                break
            assert server.poll() is None, server.stderr.read()
            time.sleep(0.1)
        url = "http://127.0.0.1:%d" % int(port_file.read_text())
        info = json.load(urllib.request.urlopen(url + "/info", timeout=30))
        assert info["model_id"] == DENSE
        request = urllib.request.Request(url + "/embed",
                                         data=b'{"inputs": "hello", "normalize": false}',
                                         headers={"Content-Type": "application/json"})
        served = json.load(urllib.request.urlopen(request, timeout=30))
        local = tfenc(env, "embed", "--model", folder("st_dense"), "--json", "hello")
        want = json.loads(local.stdout)["embeddings"]
        assert len(served) == 1 and len(served[0]) == len(want[0]) == 6
        assert max(abs(a - b) for a, b in zip(served[0], want[0])) <= 1e-6
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        server.stderr.close()
