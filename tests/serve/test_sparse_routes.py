"""test_sparse_routes.py TFENC DATA_DIR — POST /embed_sparse (TEI's shape:
one list of {"index", "value"} a text, ascending indices, the non-zero
values) on the SPLADE folders of tests/data/sparse (gen_sparse.py): a
SparseEncoder's and a Router's (documents, and "is_query": true its query
route), each against
expected.json's float64 references within 1e-5 and against `tfenc embed
--sparse`; a long text cut with "truncate" and refused
without; a body without "inputs", token ids, and the route on an embedding
folder answered with TEI's error shape and the message naming it."""
import json
import os
import subprocess
import sys

TFENC, DATA = sys.argv[1], sys.argv[2]
SPARSE = os.path.join(DATA, "sparse")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_serve import SERVERS, TOL, Server, validate  # noqa: E402


def dense(values, vocab):
    """A SparseValue list as [vocab] floats, its order and values checked."""
    out = [0.0] * vocab
    indices = [v["index"] for v in values]
    assert indices == sorted(set(indices)), indices
    for v in values:
        assert set(v) == {"index", "value"} and v["value"] != 0, v
        out[v["index"]] = v["value"]
    return out


def close(got, want, what):
    for j, (g, w) in enumerate(zip(got, want)):
        assert abs(g - w) <= TOL, f"{what} [{j}]: got {g}, want {w}"


def cli_vectors(folder, texts):
    """`tfenc embed --sparse --decode-tokens` of texts, its tokens checked
    against the folder's vocab.txt."""
    out = subprocess.run([TFENC, "embed", "--model", folder, "--sparse", "--decode-tokens",
                          *texts], check=True, capture_output=True, text=True).stdout
    vocab = open(os.path.join(folder, "vocab.txt")).read().split("\n")
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        assert line["tokens"] == [vocab[i] for i in line["indices"]], line
    return lines


def check_folder(name, *flags):
    folder = os.path.join(SPARSE, name)
    exp = json.load(open(os.path.join(folder, "expected.json")))
    server = Server(folder, *flags)
    status, body = server.post("/embed_sparse", {"inputs": exp["texts"]})
    assert status == 200, body
    assert len(body) == len(exp["texts"]) and validate(body, "EmbedSparseResponse"), body
    for i, (values, want) in enumerate(zip(body, exp["dense"])):
        close(dense(values, exp["vocab_size"]), want, f"{name} {i}")
    for i, line in enumerate(cli_vectors(folder, exp["texts"])):
        assert line["indices"] == [v["index"] for v in body[i]], (name, i)
        close(line["values"], [v["value"] for v in body[i]], f"{name} cli {i}")
    status, one = server.post("/embed_sparse", {"inputs": exp["texts"][0]})
    assert status == 200 and one == body[:1], one
    return server


def check_bare_masked_lm():
    """The older SPLADE folders (a bare *ForMaskedLM: splade_pp) as TEI serves them,
    with --pooling splade: /embed_sparse, POST / and /info's pooling; without the flag
    the folder is an embedding (mean pooling, as SentenceTransformer loads it)."""
    server = check_folder("splade_pp", "--pooling", "splade")
    exp = json.load(open(os.path.join(SPARSE, "splade_pp", "expected.json")))
    assert server.post("/", {"inputs": exp["texts"]})[1] == \
        server.post("/embed_sparse", {"inputs": exp["texts"]})[1]
    assert server.request("GET", "/info")[1]["model_type"] == {"embedding": {"pooling": "splade"}}
    server.stop()
    plain = Server(os.path.join(SPARSE, "splade_pp"))
    assert plain.request("GET", "/info")[1]["model_type"] == {"embedding": {"pooling": "mean"}}
    assert plain.post("/embed_sparse", {"inputs": "x"})[0] == 424
    plain.stop()
    for flags, message in (
            (["--pooling", "mean"], "tfenc serve: --pooling: expected splade (a *ForMaskedLM "
             "folder as SPLADE), got 'mean'; an embedding folder's pooling is its own "
             "(1_Pooling/config.json)"),
            (["--pooling", "splade"], "tfenc serve: --pooling splade: %s is an embedding "
             "folder; splade takes a *ForMaskedLM one" % os.path.join(DATA, "pipelines",
                                                                    "st_mean_norm"))):
        run = subprocess.run([TFENC, "serve", "--model", os.path.join(DATA, "pipelines",
                                                                       "st_mean_norm"),
                              "--port", "0", *flags], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode in (1, 2) and message in run.stderr, (run.returncode, run.stderr)


def main():
    check_bare_masked_lm()
    check_folder("splade_v3").stop()
    server = check_folder("opensearch_doc_v2")
    long_text = " ".join(["the quick brown fox"] * 20)
    status, body = server.post("/embed_sparse", {"inputs": long_text})
    assert status == 422 and body["error_type"] == "Validation", (status, body)
    assert "more than the model's limit of 32" in body["error"], body
    status, body = server.post("/embed_sparse", {"inputs": long_text, "truncate": True})
    assert status == 200 and body[0], body
    exp = json.load(open(os.path.join(SPARSE, "opensearch_doc_v2", "expected.json")))
    status, body = server.post("/embed_sparse", {"inputs": exp["queries"], "is_query": True})
    assert status == 200, body
    for i, (values, want) in enumerate(zip(body, exp["query_dense"])):
        close(dense(values, exp["vocab_size"]), want, f"query {i}")
    status, body = server.post("/embed_sparse", {"inputs": "x", "is_query": 1})
    assert status == 422 and "is_query" in body["error"], (status, body)
    status, body = server.post("/embed_sparse", {"input": "x"})
    assert status != 200 and "inputs" in body["error"], body
    status, body = server.post("/embed_sparse", {"inputs": [[1, 2, 3]]})
    assert status != 200 and "inputs" in body["error"], body
    st = Server(os.path.join(DATA, "pipelines", "st_mean_norm"))
    status, body = st.post("/embed_sparse", {"inputs": "x"})
    assert status == 424 and "/embed_sparse needs" in body["error"], (status, body)
    assert body["error_type"] == "Backend", body
    for s in (server, st):
        s.stop()
    print("ok")


if __name__ == "__main__":
    try:
        main()
    finally:
        for server in SERVERS:
            if server.proc.poll() is None:
                server.proc.kill()
