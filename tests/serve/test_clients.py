"""tfenc serve driven by the clients people point at TEI and OpenAI: the npm
`openai` client and `@huggingface/inference` (clients/package-lock.json,
installed with npm ci into TFENC_CLIENTS_NPM_DIR; clients/clients.mjs makes
the calls) and curl, on an embedding folder (st_dense: a default prompt, no
Normalize module), a classifier and a cross-encoder of tests/data/pipelines.
Every vector and score is compared with `tfenc embed` / `classify` /
`rerank --json` on the same inputs: float32-equal where the server runs the
CLI's path, within 1e-6 where the reference is computed here in float64 (a
cosine, a logit's sigmoid). Run as a script (meson does) it is pytest on
itself, and exits 77 (skipped) with a message where npm or node is not
installed.

Environment: TFENC_CLI (the tfenc program), TFENC_DATA_DIR (tests/data),
TFENC_CLIENTS_NPM_DIR (where the clients are installed)."""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TFENC = os.environ.get("TFENC_CLI", "")
PIPELINES = os.path.join(os.environ.get("TFENC_DATA_DIR", ""), "pipelines")
ST, CL, CE = (os.path.join(PIPELINES, d) for d in ("st_dense", "classifier", "cross_encoder"))
NPM_DIR = os.environ.get("TFENC_CLIENTS_NPM_DIR") or os.path.join(HERE, "..", "..",
                                                                   "build-clients-npm")
COMPUTED_TOL = 1e-6  # against a reference computed here in float64 (a cosine, a sigmoid)

TEXTS = ["hello world", "the cat sat on the mat.", "a dog has four legs."]
DIMENSIONS = 4
SOURCE, SENTENCES = "hello world", ["hello world", "a dog", "the sky is blue."]
CLASSIFY_TEXTS = ["i liked the movie.", "the sky is blue."]
QUERY, DOCS = "how many legs does a dog have?", ["a dog has four legs.", "the sky is blue.",
                                                 "hello world"]

NO_NPM = None if shutil.which("npm") and shutil.which("node") else \
    "npm or node is not installed: the npm clients are not run"
if NO_NPM and __name__ != "__main__":
    pytest.skip(NO_NPM, allow_module_level=True)


def cli(*args):
    """The parsed JSON that tfenc prints for args."""
    p = subprocess.run([TFENC, *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def cli_vectors(folder, texts, *flags):
    return cli("embed", "--model", folder, "--json", *flags, *texts)["embeddings"]


def token_ids(folder, texts):
    """Each text's ids from tfenc tokenize, without [CLS] and [SEP]."""
    p = subprocess.run([TFENC, "tokenize", "--tokenizer", folder, "--json", *texts],
                       capture_output=True, text=True, check=True)
    return [json.loads(line)["ids"][1:-1] for line in p.stdout.splitlines()]


def assert_float32_equal(got, want, what):
    """got and want the same float32 numbers (JSON's decimals parsed to float32)."""
    g, w = np.asarray(got, dtype=np.float32), np.asarray(want, dtype=np.float32)
    assert g.shape == w.shape, (what, g.shape, w.shape)
    assert np.array_equal(g, w), (what, float(np.max(np.abs(g - w))), got, want)


class Server:
    """tfenc serve on a free loopback port, its stderr in a file."""

    def __init__(self, folder, tmp):
        self.port_file = os.path.join(tmp, os.path.basename(folder) + ".port")
        self.log_path = os.path.join(tmp, os.path.basename(folder) + ".log")
        self.proc = subprocess.Popen(
            [TFENC, "serve", "--model", folder, "--port", "0", "--port-file", self.port_file],
            stderr=open(self.log_path, "wb"))
        for _ in range(1000):
            if os.path.exists(self.port_file) and open(self.port_file).read().strip():
                break
            assert self.proc.poll() is None, self.log()
            time.sleep(0.01)
        self.url = "http://127.0.0.1:" + open(self.port_file).read().strip()

    def log(self):
        return open(self.log_path, errors="replace").read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0, self.log()


@pytest.fixture(scope="module")
def servers():
    """{"embed", "classifier", "reranker"}: a server for each folder."""
    tmp = tempfile.mkdtemp()
    started = {}
    try:
        for name, folder in (("embed", ST), ("classifier", CL), ("reranker", CE)):
            started[name] = Server(folder, tmp)
        yield started
        for s in started.values():
            s.stop()
    finally:
        for s in started.values():
            if s.proc.poll() is None:
                s.proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def npm_clients():
    """clients.mjs in NPM_DIR, the locked packages installed beside it (npm ci, again
    whenever the lock changed)."""
    os.makedirs(NPM_DIR, exist_ok=True)
    lock = open(os.path.join(HERE, "clients", "package-lock.json")).read()
    installed_lock = os.path.join(NPM_DIR, "installed-package-lock.json")
    for name in ("package.json", "package-lock.json", "clients.mjs"):
        shutil.copy(os.path.join(HERE, "clients", name), NPM_DIR)
    if not os.path.exists(installed_lock) or open(installed_lock).read() != lock:
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NPM_DIR,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        shutil.copy(os.path.join(NPM_DIR, "package-lock.json"), installed_lock)
    return os.path.join(NPM_DIR, "clients.mjs")


@pytest.fixture(scope="module")
def calls(servers):
    """{call name: {"result"} or {"error"}} of clients.mjs against the servers."""
    script = npm_clients()
    inputs = {"embed_url": servers["embed"].url, "classifier_url": servers["classifier"].url,
              "reranker_url": servers["reranker"].url, "texts": TEXTS,
              "token_ids": token_ids(ST, TEXTS), "dimensions": DIMENSIONS, "source": SOURCE,
              "sentences": SENTENCES, "classify_texts": CLASSIFY_TEXTS}
    path = os.path.join(NPM_DIR, "inputs.json")
    json.dump(inputs, open(path, "w"))
    p = subprocess.run(["node", script, path], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def result(calls, name):
    assert "result" in calls[name], (name, calls[name])
    return calls[name]["result"]


# ---- OpenAI's client on /v1 -------------------------------------------------------------

# call name -> (texts, tfenc embed flags): /v1/embeddings follows the folder (its default
# prompt; token ids run with no prompt, as --prompt-name "")
OPENAI_EMBEDDINGS = {
    "openai.embeddings string": (TEXTS[:1], ()),
    "openai.embeddings array": (TEXTS, ()),
    "openai.embeddings token ids": (TEXTS[:1], ("--prompt-name", "")),
    "openai.embeddings token id lists": (TEXTS, ("--prompt-name", "")),
    "openai.embeddings base64": (TEXTS, ()),
    "openai.embeddings float": (TEXTS, ()),
    "openai.embeddings dimensions": (TEXTS, ("--dimensions", str(DIMENSIONS))),
}


@pytest.mark.parametrize("name", OPENAI_EMBEDDINGS)
def test_openai_embeddings_are_the_cli_vectors(calls, name):
    texts, flags = OPENAI_EMBEDDINGS[name]
    assert_float32_equal(result(calls, name), cli_vectors(ST, texts, *flags), name)


def test_openai_models_list_is_the_served_folder(calls):
    models = result(calls, "openai.models.list")
    assert len(models) == 1, models
    assert models[0]["id"] == "st_dense" and models[0]["object"] == "model", models
    assert isinstance(models[0]["created"], int) and models[0]["owned_by"], models


# ---- @huggingface/inference -------------------------------------------------------------

# call name -> (texts, tfenc embed flags): /embed (and POST /) normalise by default, as TEI
FEATURE_EXTRACTION = {
    "hf.featureExtraction root": (TEXTS[:1], ("--normalize",)),
    "hf.featureExtraction endpoint array": (TEXTS, ("--normalize",)),
    "hf.featureExtraction /embed normalize false": (TEXTS, ()),
    "HfInference.featureExtraction root": (TEXTS, ("--normalize",)),
}


@pytest.mark.parametrize("name", FEATURE_EXTRACTION)
def test_hf_feature_extraction_is_the_cli_vectors(calls, name):
    texts, flags = FEATURE_EXTRACTION[name]
    assert_float32_equal(result(calls, name), cli_vectors(ST, texts, *flags), name)


def cosines(source, sentences):
    """The cosine of the source's CLI vector with each sentence's, in float64."""
    vectors = np.asarray(cli_vectors(ST, [source, *sentences]), dtype=np.float64)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return list(unit[1:] @ unit[0])


def test_hf_sentence_similarity_is_the_cosine_of_the_cli_vectors(calls):
    got = result(calls, "hf.sentenceSimilarity /similarity")
    want = cosines(SOURCE, SENTENCES)
    assert len(got) == len(want) and all(
        abs(g - w) <= COMPUTED_TOL for g, w in zip(got, want)), (got, want)


def cli_labels(texts):
    """Each text's [{"label", "score"}], best first, from tfenc classify."""
    return [c["labels"] for c in cli("classify", "--model", CL, "--json", *texts)]


def assert_same_labels(got, want, what):
    assert [p["label"] for p in got] == [p["label"] for p in want], (what, got, want)
    assert_float32_equal([p["score"] for p in got], [p["score"] for p in want], what)


def test_hf_text_classification_batch_form_is_the_cli_labels(calls):
    # the client returns the first text's predictions of the list of lists
    got = result(calls, "hf.textClassification batch form")
    assert_same_labels(got, cli_labels(CLASSIFY_TEXTS[:1])[0], "batch form")


@pytest.mark.parametrize("name", ["hf.textClassification root", "hf.textClassification /predict"])
def test_hf_text_classification_of_a_string_reads_tei_shape_as_malformed(calls, name):
    # TEI answers {"inputs": text} with one list of predictions (PredictResponse::Single,
    # router/src/http/types.rs); the client reads response[0] as that list, so TEI's own
    # answer is refused by the client: this server answers as TEI does.
    assert calls[name].get("error", "").startswith(
        "ProviderOutputError: Received malformed response from HF-Inference "
        "text-classification API"), calls[name]


# ---- curl on TEI's routes -------------------------------------------------------------

def curl(url, path, body):
    """The parsed JSON of curl's POST of body to url + path (status 200)."""
    out = subprocess.run(["curl", "-s", "-w", "\n%{http_code}", "-H",
                          "Content-Type: application/json", "-d", json.dumps(body), url + path],
                         check=True, capture_output=True, text=True).stdout
    text, status = out.rsplit("\n", 1)
    assert status == "200", (path, body, status, text)
    return json.loads(text)


def assert_same_ranks(got, want, what):
    assert [(r["index"], r.get("text")) for r in got] == \
        [(r["index"], r["text"]) for r in want], (what, got, want)
    assert_float32_equal([r["score"] for r in got], [r["score"] for r in want], what)


@pytest.mark.parametrize("path", ["/rerank", "/"])
def test_curl_rerank_is_the_cli_ranks(servers, path):
    got = curl(servers["reranker"].url, path, {"query": QUERY, "texts": DOCS,
                                               "return_text": True})
    assert_same_ranks(got, cli("rerank", "--model", CE, "--json", QUERY, *DOCS), path)


def test_curl_rerank_raw_scores_are_the_cli_logits(servers):
    got = curl(servers["reranker"].url, "/rerank", {"query": QUERY, "texts": DOCS,
                                                    "raw_scores": True})
    want = {r["index"]: r["score"] for r in cli("rerank", "--model", CE, "--json", QUERY, *DOCS)}
    # the CLI's score is the logit's sigmoid (one label)
    for r in got:
        assert "text" not in r, r
        assert abs(1 / (1 + math.exp(-r["score"])) - want[r["index"]]) <= COMPUTED_TOL, (r, want)


def test_curl_similarity_is_the_cosine_of_the_cli_vectors(servers):
    got = curl(servers["embed"].url, "/similarity",
               {"inputs": {"source_sentence": SOURCE, "sentences": SENTENCES}})
    want = cosines(SOURCE, SENTENCES)
    assert len(got) == len(want) and all(
        abs(g - w) <= COMPUTED_TOL for g, w in zip(got, want)), (got, want)


@pytest.mark.parametrize("inputs", [CLASSIFY_TEXTS[0], [[t] for t in CLASSIFY_TEXTS]],
                         ids=["single", "batch"])
def test_curl_predict_is_the_cli_labels(servers, inputs):
    got = curl(servers["classifier"].url, "/predict", {"inputs": inputs})
    texts = [inputs] if isinstance(inputs, str) else [t[0] for t in inputs]
    want = cli_labels(texts)
    got = [got] if isinstance(inputs, str) else got
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert_same_labels(g, w, inputs)


if __name__ == "__main__":
    if NO_NPM:
        print(NO_NPM)
        sys.exit(77)
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", __file__]))
