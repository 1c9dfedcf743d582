"""test_multi_vector_routes.py TFENC DATA_DIR — per-token vectors over HTTP:
POST /embed_all (TEI's EmbedAllResponse: a list of tokens' vectors an input)
on a PyLate (ColBERT) folder of tests/data/colbert (gen_colbert.py: its
documents, and its queries with this server's "is_query": true) and on the
embedding folder tests/data/pipelines/st_mean_norm (its last hidden state),
each against the folders' float64 references within 1e-5 and against
`tfenc embed --multi-vector`; POST /rerank on the ColBERT folder by MaxSim
against the reference scores and `tfenc rerank`; a query or a document over
the model's lengths refused without "truncate" and cut with it; /embed and
/embed_all on folders of other kinds answered with TEI's 424; the pooled
vectors' flags refused with --multi-vector."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_serve import Server, TOL, validate  # noqa: E402

TFENC, DATA = sys.argv[1], sys.argv[2]
COLBERT = os.path.join(DATA, "colbert")


def close_rows(got, want, what):
    assert len(got) == len(want), (what, len(got), len(want))
    for r, (g, w) in enumerate(zip(got, want)):
        assert len(g) == len(w), (what, r)
        for j, (a, b) in enumerate(zip(g, w)):
            assert abs(a - b) <= TOL, f"{what} [{r}, {j}]: got {a}, want {b}"


def cli_vectors(folder, texts, *flags):
    out = subprocess.run([TFENC, "embed", "--model", folder, "--multi-vector", *flags, *texts],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def check_colbert(name):
    folder = os.path.join(COLBERT, name)
    exp = json.load(open(os.path.join(folder, "expected.json")))
    server = Server(folder)
    for side, is_query in (("documents", False), ("queries", True)):
        texts = exp[side]["texts"]
        status, body = server.post("/embed_all", {"inputs": texts, "is_query": is_query})
        assert status in (400, 422) and "truncate" in body["error"], (side, body)  # TEI: 422
        status, body = server.post("/embed_all", {"inputs": texts, "is_query": is_query,
                                                  "truncate": True})
        assert status == 200 and validate(body, "EmbedAllResponse"), (side, body)
        for i, (got, want) in enumerate(zip(body, exp[side]["vectors"])):
            close_rows(got, want, f"{name} {side} {i}")
        cli = cli_vectors(folder, texts, *(["--query"] if is_query else []))
        for i, line in enumerate(cli):
            assert line["rows"] == len(body[i]) and line["dim"] == exp["dim"], (name, i)
            close_rows(line["vectors"], body[i], f"{name} cli {side} {i}")
    query = exp["queries"]["texts"][0]  # within query_length
    status, ranking = server.post("/rerank", {"query": query, "texts": exp["documents"]["texts"],
                                              "truncate": True, "return_text": True})
    assert status == 200 and validate(ranking, "RerankResponse"), ranking
    want = exp["scores"][0]
    assert [r["index"] for r in ranking] == sorted(range(len(want)), key=lambda i: -want[i])
    for r in ranking:
        assert abs(r["score"] - want[r["index"]]) <= 1e-4, (r, want)
        assert r["text"] == exp["documents"]["texts"][r["index"]]
    cli = subprocess.run([TFENC, "rerank", "--model", folder, "--json", query,
                          *exp["documents"]["texts"]], check=True, capture_output=True,
                         text=True).stdout
    assert [r["index"] for r in json.loads(cli)] == [r["index"] for r in ranking]
    long_query = max(exp["queries"]["texts"], key=len)
    status, body = server.post("/rerank", {"query": long_query, "texts": ["a"]})
    assert status in (400, 422) and body["error"].startswith("query: more tokens than the model's "
                                                      "query length"), body
    status, body = server.post("/embed", {"inputs": "a"})
    assert status == 424 and body["error_type"] == "Backend" and "/embed_all" in body["error"]
    return server


def check_embedding():
    folder = os.path.join(DATA, "pipelines", "st_mean_norm")
    exp = json.load(open(os.path.join(COLBERT, "st_mean_norm_tokens.json")))
    server = Server(folder, "--auto-truncate")
    status, body = server.post("/embed_all", {"inputs": exp["texts"]})
    assert status == 200 and validate(body, "EmbedAllResponse"), body
    for i, (got, want) in enumerate(zip(body, exp["vectors"])):
        close_rows(got, want, f"st_mean_norm {i}")
    status, ids = server.post("/embed_all", {"inputs": [exp["ids"][1][1:-1]]})
    assert status == 200 and ids == body[1:2], ids
    status, one = server.post("/embed_all", {"inputs": exp["texts"][0]})
    assert status == 200 and one == body[:1], one
    for i, line in enumerate(cli_vectors(folder, exp["texts"])):
        close_rows(line["vectors"], body[i], f"st_mean_norm cli {i}")
    return server


def main():
    servers = [check_colbert(name) for name in ("answerai_like", "modernbert_like")]
    servers.append(check_embedding())
    refused = subprocess.run([TFENC, "embed", "--model", os.path.join(COLBERT, "answerai_like"),
                              "--multi-vector", "--pool", "cls", "a"], capture_output=True,
                             text=True)
    assert refused.returncode == 2 and refused.stderr == (
        "tfenc embed: --pool: not with --multi-vector (one JSON line of vectors a text)\n"), \
        refused.stderr
    ce = Server(os.path.join(DATA, "pipelines", "cross_encoder"))
    status, body = ce.post("/embed_all", {"inputs": "a"})
    assert status == 424 and body["error"] == ("/embed_all needs an embedding or multi-vector "
                                               "model; this server's model is cross-encoder"), body
    for s in servers + [ce]:
        s.stop()
    print("ok")


if __name__ == "__main__":
    main()
