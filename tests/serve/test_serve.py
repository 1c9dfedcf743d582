"""test_serve.py TFENC DATA_DIR — tfenc serve on the model folders of
tests/data/pipelines, driven over loopback by http.client from many threads
and by curl: every route's numbers against tfenc embed / rerank / classify
run on the same texts (and the folders' expected.json, gen_pipelines.py's
float64 references) within 1e-5; every error with its status, shape and
message; 64 clients x 50 requests on keep-alive connections, each response
matched to its request; a client that goes away frees its slot; SIGTERM
under load answers what was admitted and exits 0."""
import base64
import http.client
import json
import math
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

TFENC, DATA = sys.argv[1], os.path.join(sys.argv[2], "pipelines")
ST, CE, CL = (os.path.join(DATA, d) for d in ("st_mean_norm", "cross_encoder", "classifier"))
TMP = tempfile.mkdtemp()
TOL = 1e-5


SERVERS = []  # every server started, killed at the end if still running


class Server:
    """tfenc serve on a free loopback port, its stderr in a file."""

    def __init__(self, model, *flags):
        SERVERS.append(self)
        self.port_file = os.path.join(TMP, f"port{id(self)}")
        self.log_path = os.path.join(TMP, f"log{id(self)}")
        self.proc = subprocess.Popen(
            [TFENC, "serve", "--model", model, "--port", "0", "--port-file", self.port_file,
             *flags], stderr=open(self.log_path, "w"))
        for _ in range(500):
            if os.path.exists(self.port_file):
                break
            assert self.proc.poll() is None, self.log()
            time.sleep(0.01)
        self.port = int(open(self.port_file).read())

    def log(self):
        return open(self.log_path).read()

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, parsed JSON or text, headers) of one request."""
        c = conn or self.conn()
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        c.request(method, path, body=data, headers=headers or {})
        r = c.getresponse()
        raw = r.read()
        if not conn:
            c.close()
        text = raw.decode()
        ctype = r.getheader("Content-Type") or ""
        return r.status, json.loads(text) if "json" in ctype else text, r

    def post(self, path, body, **kw):
        status, out, _ = self.request("POST", path, body, **kw)
        return status, out

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0, self.log()


def tfenc_json(*args):
    return json.loads(subprocess.run([TFENC, *args], check=True, capture_output=True,
                                     text=True).stdout)


def close(got, want, what):
    assert len(got) == len(want), (what, len(got), len(want))
    for g, w in zip(got, want):
        assert len(g) == len(w), (what, len(g), len(w))
        assert all(abs(a - b) <= TOL for a, b in zip(g, w)), (what, g, w)


def curl(port, path, *args):
    """(status, body) of curl -s on path."""
    out = subprocess.run(["curl", "-s", "-w", "\n%{http_code}", *args,
                          f"http://127.0.0.1:{port}{path}"], check=True, capture_output=True,
                         text=True).stdout
    body, status = out.rsplit("\n", 1)
    return int(status), body


def check_error(status_body, status, needle, openai=False):
    got_status, body = status_body
    assert got_status == status, (got_status, status, body)
    if openai:
        err = body["error"]
        assert set(err) == {"message", "type", "param", "code"} and err["code"] == status, body
        assert needle in err["message"], (needle, body)
    else:
        assert set(body) == {"error", "error_type"}, body
        assert needle in body["error"], (needle, body)


TEXTS = ["the cat sat on the mat.", "a dog runs fast!", "where is the big red house?",
         "hello world"]
LONG = "the quick brown fox jumps over the lazy dog and the cat sat on the mat"


def test_embeddings(s):
    want = tfenc_json("embed", "--model", ST, "--json", *TEXTS)["embeddings"]
    expected = json.load(open(os.path.join(ST, "expected.json")))
    status, got = s.post("/embed", {"inputs": TEXTS})
    assert status == 200, got
    close(got, want, "/embed")
    close(got, expected["plain"]["embeddings"][:4], "/embed vs float64")
    status, one = s.post("/embed", {"inputs": TEXTS[1]})
    close(one, want[1:2], "/embed one string")
    status, out = s.post("/v1/embeddings", {"input": TEXTS, "model": "m"})
    assert status == 200 and out["object"] == "list" and out["model"] == "m", out
    assert [d["index"] for d in out["data"]] == [0, 1, 2, 3]
    assert all(d["object"] == "embedding" for d in out["data"])
    close([d["embedding"] for d in out["data"]], want, "/v1/embeddings")
    tokens = sum(sum(1 for t in toks) for toks in s.post("/tokenize", {"inputs": TEXTS})[1])
    assert out["usage"] == {"prompt_tokens": tokens, "total_tokens": tokens}, (out["usage"], tokens)
    # token ids (the model's own, as /tokenize gives them without specials) run as the text
    ids = [[t["id"] for t in toks] for toks in
           s.post("/tokenize", {"inputs": TEXTS, "add_special_tokens": False})[1]]
    status, by_ids = s.post("/v1/embeddings", {"input": ids})
    assert status == 200, by_ids
    close([d["embedding"] for d in by_ids["data"]], want, "token-id inputs")
    assert by_ids["usage"]["prompt_tokens"] == sum(len(i) + 2 for i in ids), by_ids["usage"]
    status, one_ids = s.post("/v1/embeddings", {"input": ids[3]})
    close([one_ids["data"][0]["embedding"]], want[3:4], "one list of token ids")
    status, b64 = s.post("/v1/embeddings", {"input": TEXTS[0], "encoding_format": "base64"})
    raw = base64.b64decode(b64["data"][0]["embedding"])
    close([list(struct.unpack(f"<{len(raw) // 4}f", raw))], want[:1], "base64")
    # the long text: 413 without truncation, else cut as tfenc embed cuts it
    check_error(s.post("/embed", {"inputs": [TEXTS[0], LONG]}), 413,
                "inputs[1]: 18 tokens, more than the model's limit of 12")
    check_error(s.post("/v1/embeddings", {"input": LONG}), 413, "input[0]: 18 tokens", True)
    status, cut = s.post("/embed", {"inputs": [LONG], "truncate": True})
    close(cut, expected["plain"]["embeddings"][4:5], "truncated")
    # prompts, Matryoshka dimensions, normalize false
    want_q = tfenc_json("embed", "--model", ST, "--json", "--prompt-name", "query", *TEXTS)
    close(s.post("/embed", {"inputs": TEXTS, "prompt_name": "query"})[1],
          want_q["embeddings"], "prompt")
    close(s.post("/embed", {"inputs": TEXTS, "prompt_name": "query"})[1],
          expected["query"]["embeddings"][:4], "prompt vs float64")
    d8 = subprocess.run([TFENC, "embed", "--model", ST, "--dimensions", "8", TEXTS[0]],
                        check=True, capture_output=True, text=True).stdout.split()
    status, out = s.post("/v1/embeddings", {"input": [TEXTS[0]], "dimensions": 8})
    close([out["data"][0]["embedding"]], [[float(v) for v in d8]], "dimensions")
    # nomic's Matryoshka recipe, on both routes, as tfenc embed gives it (its float64
    # reference: check_pipelines.sh)
    ln8 = tfenc_json("embed", "--model", ST, "--json", "--dimensions", "8",
                     "--dimensions-layer-norm", *TEXTS)["embeddings"]
    status, out = s.post("/v1/embeddings", {"input": TEXTS, "dimensions": 8,
                                            "dimensions_layer_norm": True})
    close([d["embedding"] for d in out["data"]], ln8, "dimensions_layer_norm (OpenAI)")
    close(s.post("/embed", {"inputs": TEXTS, "dimensions": 8, "dimensions_layer_norm": True})[1],
          ln8, "dimensions_layer_norm (TEI)")
    raw_vec = s.post("/embed", {"inputs": [TEXTS[0]], "normalize": False})[1][0]
    norm = math.sqrt(sum(v * v for v in raw_vec))
    assert abs(norm - 1) > 1e-3, norm  # the folder's Normalize skipped
    close([[v / norm for v in raw_vec]], want[:1], "normalize false, then by hand")


def test_tokenize(s):
    status, toks = s.post("/tokenize", {"inputs": "hello world"})
    assert status == 200, toks
    assert [(t["text"], t["special"]) for t in toks[0]] == [
        ("[CLS]", True), ("hello", False), ("world", False), ("[SEP]", True)], toks
    assert [(t["start"], t["stop"]) for t in toks[0][1:3]] == [(0, 5), (6, 11)], toks
    status, bare = s.post("/tokenize", {"inputs": ["hello world"], "add_special_tokens": False})
    assert [t["id"] for t in bare[0]] == [t["id"] for t in toks[0][1:3]], bare


def test_errors(s):
    check_error(s.post("/embed", b"{\"inputs\": [\"a\""), 400, "the request body")
    check_error(s.post("/v1/embeddings", b"not json"), 400, "the request body", True)
    check_error(s.post("/embed", {"inputs": 3}), 400, "inputs: expected a string or a list")
    check_error(s.post("/embed", {"inputs": ["a", 4]}), 400, "inputs[1]: expected a string")
    check_error(s.post("/embed", {"inputs": []}), 400, "inputs: an empty list")
    check_error(s.post("/embed", {"inputs": "a", "normalize": "yes"}), 400,
                "normalize: expected true or false, got a string")
    check_error(s.post("/v1/embeddings", {"input": "a", "encoding_format": "int8"}), 400,
                "encoding_format: expected \"float\" or \"base64\"", True)
    check_error(s.post("/v1/embeddings", {"input": "a", "dimensions": 0}), 400,
                "dimensions: expected a positive integer, got 0", True)
    check_error(s.post("/v1/embeddings", {"input": "a", "dimensions": 17}), 400,
                "dimensions: 17, but the model's vectors have 16", True)
    check_error(s.post("/embed", {"inputs": "a", "dimensions_layer_norm": 1}), 400,
                "dimensions_layer_norm: expected true or false, got a number")
    check_error(s.post("/v1/embeddings", {"input": [55]}), 400,  # "##s" alone
                "input[0][0]: id 55 does not come back from the ids' text (\"##s\"), which "
                "tokenizes to 1 there", True)
    check_error(s.post("/v1/embeddings", {"input": [[24], [24, 999]]}), 400,
                "input[1]: ids[1]: 999 is not a token", True)
    check_error(s.post("/v1/embeddings", {"input": [24, -1]}), 400,
                "input[0][1]: expected a token id (an integer 0..2147483647), got -1", True)
    check_error(s.post("/v1/embeddings", {"input": [[24], []]}), 400,
                "input[1]: an empty list of token ids", True)
    check_error(s.post("/v1/embeddings", {"input": [24] * 11}), 413,
                "input[0]: 13 tokens, more than the model's limit of 12", True)
    check_error(s.post("/embed", {"inputs": [24, 25]}), 400, "inputs[0]: expected a string")
    check_error(s.post("/embed", {"inputs": "a", "prompt_name": "nope"}), 400,
                "prompt_name \"nope\"")
    check_error(s.post("/embed", b"{\"inputs\": \"a\", \"inputs\": \"b\"}"), 400, "inputs")
    check_error(s.post("/embed", {"inputs": ["a"] * 9}), 413,
                "inputs: 9 inputs, more than the server's limit of 8")
    check_error(s.post("/rerank", {"query": "a", "texts": ["b"]}), 400,
                "/rerank needs a cross-encoder model; this server's model is embedding")
    check_error(s.request("GET", "/embed")[:2], 405, "/embed takes POST, not GET")
    check_error(s.request("GET", "/nope")[:2], 404, "no route /nope")
    check_error(s.request("POST", "/v1/nope", {})[:2], 404, "no route /v1/nope")
    # a path with a newline: one log line still, the byte as '?'
    check_error(s.request("GET", "/no%0Awhere")[:2], 404, "no route /no\nwhere")
    assert "GET /no?where 404" in s.log() and "\nwhere" not in s.log(), s.log()[-300:]
    # a body over --payload-limit (4096): refused from its Content-Length, unread
    big = json.dumps({"inputs": "a" * 5000})
    status, body = curl(s.port, "/embed", "-H", "Content-Type: application/json",
                        "--data-binary", big)
    check_error((status, json.loads(body)), 413, "5014 bytes (Content-Length) are more than "
                "the server's limit of 4096")
    # the same without a length (chunked): counted as it is read
    status, body = curl(s.port, "/embed", "-H", "Transfer-Encoding: chunked",
                        "--data-binary", big)
    check_error((status, json.loads(body)), 413, "more than the server's limit of 4096")


def test_curl_routes(s):
    status, body = curl(s.port, "/embed", "-H", "Content-Type: application/json",
                        "-d", json.dumps({"inputs": TEXTS[0]}))
    want = tfenc_json("embed", "--model", ST, "--json", TEXTS[0])["embeddings"]
    assert status == 200
    close(json.loads(body), want, "curl /embed")
    status, body = curl(s.port, "/v1/embeddings", "-d", json.dumps({"input": TEXTS[0]}))
    close([json.loads(body)["data"][0]["embedding"]], want, "curl /v1/embeddings")
    assert curl(s.port, "/health")[0] == 200
    status, body = curl(s.port, "/info")
    info = json.loads(body)
    assert info["max_input_length"] == 12 and info["max_client_batch_size"] == 8, info
    assert info["model_type"] == {"embedding": {"dim": 16, "similarity": "cosine"}}, info
    status, body = curl(s.port, "/tokenize", "-d", json.dumps({"inputs": "hello"}))
    assert status == 200 and json.loads(body)[0][1]["text"] == "hello"


def test_many_clients(s, clients=64, requests=50):
    texts = [f"client {c} asks {r} things about the {['cat', 'dog', 'house'][r % 3]}"
             for c in range(clients) for r in range(requests)]
    want = tfenc_json("embed", "--model", ST, "--json", *texts)["embeddings"]
    failures = []

    def client(c):
        conn = s.conn()  # one keep-alive connection for all its requests
        for r in range(requests):
            i = c * requests + r
            path, body = (("/embed", {"inputs": texts[i]}) if r % 2 else
                          ("/v1/embeddings", {"input": [texts[i]]}))
            try:
                status, out, _ = s.request("POST", path, body, conn=conn)
                got = out if r % 2 else [out["data"][0]["embedding"]]
                if status != 200:
                    failures.append((i, status, out))
                else:
                    close(got, want[i:i + 1], texts[i])
            except Exception as e:  # noqa: BLE001 - reported below
                failures.append((i, repr(e)))
        conn.close()

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]
    metrics = s.request("GET", "/metrics")[1]
    assert 'tfenc_requests_total{route="/embed",status="200"}' in metrics, metrics
    assert "tfenc_queue_depth 0" in metrics, metrics
    line = [l for l in metrics.splitlines() if l.startswith("tfenc_batch_inputs_count")][0]
    calls = int(line.split()[1])
    assert calls < clients * requests, ("no call held two requests", calls)


def test_dimensions_layer_norm_default():
    """--dimensions-layer-norm: a request's dimensions follow nomic's recipe
    unless it says "dimensions_layer_norm": false."""
    s = Server(ST, "--dimensions-layer-norm")
    ln8 = tfenc_json("embed", "--model", ST, "--json", "--dimensions", "8",
                     "--dimensions-layer-norm", *TEXTS)["embeddings"]
    plain8 = tfenc_json("embed", "--model", ST, "--json", "--dimensions", "8", *TEXTS)["embeddings"]
    status, out = s.post("/v1/embeddings", {"input": TEXTS, "dimensions": 8})
    close([d["embedding"] for d in out["data"]], ln8, "--dimensions-layer-norm (OpenAI)")
    close(s.post("/embed", {"inputs": TEXTS, "dimensions": 8, "dimensions_layer_norm": False})[1],
          plain8, "dimensions_layer_norm false")
    s.stop()


def test_heads():
    q = "how many legs does a dog have?"
    docs = ["a dog has four legs.", "the sky is blue.", "the cat sat on the mat."]
    s = Server(CE, "--api-key", "sekret")
    auth = {"Authorization": "Bearer sekret"}
    want = tfenc_json("rerank", "--model", CE, "--json", q, *docs)
    status, got = s.post("/rerank", {"query": q, "texts": docs, "return_text": True},
                         headers=auth)
    assert status == 200, got
    assert [g["index"] for g in got] == [w["index"] for w in want], (got, want)
    for g, w in zip(got, want):
        assert abs(g["score"] - w["score"]) <= TOL and g["text"] == w["text"], (g, w)
    status, raw = s.post("/rerank", {"query": q, "texts": docs, "raw_scores": True},
                         headers=auth)
    for g in raw:
        w = next(x for x in want if x["index"] == g["index"])
        assert abs(1 / (1 + math.exp(-g["score"])) - w["score"]) <= TOL, (g, w)
        assert "text" not in g
    check_error(s.post("/rerank", {"query": q, "texts": docs}), 401, "API key")
    check_error(s.post("/rerank", {"query": q, "texts": docs},
                       headers={"Authorization": "Bearer wrong"}), 401, "API key")
    assert s.request("GET", "/health")[0] == 200  # no key needed
    assert curl(s.port, "/rerank", "-H", "Authorization: Bearer sekret", "-d",
                json.dumps({"query": q, "texts": docs}))[0] == 200
    check_error(s.post("/embed", {"inputs": "a"}, headers=auth), 400,
                "/embed needs an embedding model; this server's model is cross-encoder "
                "(use /rerank)")
    s.stop()

    texts = ["i liked the movie.", "the movie was bad.", "it was not good."]
    s = Server(CL)
    want = tfenc_json("classify", "--model", CL, "--json", *texts)
    status, got = s.post("/predict", {"inputs": texts})
    assert status == 200 and len(got) == 3, got
    for g, w in zip(got, want):
        assert [x["label"] for x in g] == [x["label"] for x in w["labels"]], (g, w)
        assert all(abs(a["score"] - b["score"]) <= TOL for a, b in zip(g, w["labels"]))
    status, one = s.post("/predict", {"inputs": texts[0]})
    assert [x["label"] for x in one] == [x["label"] for x in want[0]["labels"]], one
    status, raw = s.post("/predict", {"inputs": texts[0], "raw_scores": True})
    z = [math.exp(x["score"]) for x in raw]
    softmax = {x["label"]: v / sum(z) for x, v in zip(raw, z)}
    for w in want[0]["labels"]:
        assert abs(softmax[w["label"]] - w["score"]) <= TOL, (softmax, want[0])
    check_error(s.post("/predict", {"inputs": [["a", "b"], "c"]}), 400,
                "inputs[1]: a single text among pairs")
    assert curl(s.port, "/predict", "-d", json.dumps({"inputs": texts[0]}))[0] == 200
    s.stop()


def test_back_pressure_and_cancel():
    """--max-concurrent 1: concurrent requests beyond it get 429; clients
    that go away mid-body or before reading their answer free their slot."""
    s = Server(ST, "--max-concurrent", "1")
    statuses, lock = [], threading.Lock()

    def client():
        conn = s.conn()
        for _ in range(20):
            status, out, _ = s.request("POST", "/embed", {"inputs": TEXTS * 4}, conn=conn)
            with lock:
                statuses.append((status, out))
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = [st for st, _ in statuses]
    assert set(codes) <= {200, 429} and 429 in codes and 200 in codes, sorted(set(codes))
    check_error(next(x for x in statuses if x[0] == 429), 429,
                "its limit of 1 requests at once (--max-concurrent)")
    body = json.dumps({"inputs": TEXTS * 4}).encode()
    for sent in (body[:10], body):  # half a body; the whole request, then gone
        sock = socket.create_connection(("127.0.0.1", s.port))
        sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + sent)
        sock.close()
    time.sleep(0.5)
    for _ in range(5):
        status, out = s.post("/embed", {"inputs": TEXTS[0]})
        assert status == 200, out
    assert "tfenc_queue_depth 0" in s.request("GET", "/metrics")[1]
    s.stop()


def test_sigterm_under_load():
    s = Server(ST)
    results, lock, go = [], threading.Lock(), threading.Event()

    def client(c):
        conn = s.conn()
        r = 0
        while True:
            try:
                status, out, _ = s.request("POST", "/embed", {"inputs": [f"text {c} {r}"]},
                                           conn=conn)
            except (OSError, http.client.HTTPException):
                return  # the server closed: after the stop
            with lock:
                results.append((status, f"text {c} {r}", out))
            go.set()
            if status != 200:
                return
            r += 1

    threads = [threading.Thread(target=client, args=(c,)) for c in range(16)]
    for t in threads:
        t.start()
    go.wait(30)
    time.sleep(0.3)
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=60) == 0, s.log()
    for t in threads:
        t.join()
    ok = [r for r in results if r[0] == 200]
    assert ok and all(r[0] in (200, 503) for r in results), sorted({r[0] for r in results})
    want = tfenc_json("embed", "--model", ST, "--json", *[r[1] for r in ok])["embeddings"]
    close([r[2][0] for r in ok], want, "answers during the stop")
    logged = s.log().count(" 200 tokens=")
    assert logged == len(ok), ("answered 200 but not received", logged, len(ok))
    assert "SIGTERM: finishing" in s.log()


def main():
    s = Server(ST, "--max-client-batch", "8", "--payload-limit", "4096")
    try:
        test_embeddings(s)
        test_tokenize(s)
        test_errors(s)
        test_curl_routes(s)
        s.stop()
        s = Server(ST)
        test_many_clients(s)
        lines = [l for l in s.log().splitlines() if l.startswith("POST ")]
        assert len(lines) >= 64 * 50 and all(" queue_ms=" in l for l in lines), lines[:3]
        s.stop()
        test_dimensions_layer_norm_default()
        test_heads()
        test_back_pressure_and_cancel()
        test_sigterm_under_load()
    finally:
        for server in SERVERS:
            if server.proc.poll() is None:
                server.proc.kill()
    print("serve: all routes, errors, 64 x 50 clients, --dimensions-layer-norm, back-pressure, "
          "cancel, SIGTERM: ok")


main()
