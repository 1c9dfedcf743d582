"""test_serve.py TFENC DATA_DIR — tfenc serve on the model folders of
tests/data/pipelines, driven over loopback by http.client from many threads
and by curl: every route's numbers against tfenc embed / rerank / classify
run on the same texts (and the folders' expected.json, gen_pipelines.py's
float64 references) within 1e-5; every error with its status, shape and
message, every body valid UTF-8 JSON whatever bytes the request held; a
NUL byte, %00 or raw, never cuts a path, a method or a header; a body's
length said any way but one Content-Length or "Transfer-Encoding: chunked"
answered at once and closed; HEAD on the GET routes; 64
clients x 50 requests on keep-alive connections, each response matched to
its request; a client that goes away frees its slot; slow-loris connections
(half a request, or a request a byte at a time) from one address or many
neither lock other clients out nor hold their slots past the timeouts; a
folder of a kind no route serves is refused at start; SIGTERM under load
answers what was admitted and exits 0, whichever of its threads it reaches. TEI's routes (POST /, /similarity,
/decode, /embed_all, /predict's batch form, token ids, "Left" truncation) and
OpenAI's (/v1/models, 2048 inputs) checked against TEI's schemas
(tei_schemas.json) and the CLI's numbers."""
import base64
import ctypes
import http.client
import json
import math
import os
import re
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

TFENC, DATA = sys.argv[1], os.path.join(sys.argv[2], "pipelines")
FAMILIES = os.path.join(sys.argv[2], "families")
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
             *flags], stderr=open(self.log_path, "wb"))
        for _ in range(500):
            if os.path.exists(self.port_file):
                break
            assert self.proc.poll() is None, self.log()
            time.sleep(0.01)
        self.port = int(open(self.port_file).read())

    def log(self):
        return open(self.log_path, errors="replace").read()

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
        text = raw.decode("utf-8")  # strict: a body that is not UTF-8 fails
        ctype = r.getheader("Content-Type") or ""
        return r.status, json.loads(text) if "json" in ctype else text, r

    def post(self, path, body, **kw):
        status, out, _ = self.request("POST", path, body, **kw)
        return status, out

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=60)
        assert rc == 0, ("exit status", rc, self.log())


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


def check_error(status_body, status, needle, openai=False, error_type=None):
    """TEI's shape (error_type: the one expected, else Validation for 422) or OpenAI's."""
    got_status, body = status_body
    assert got_status == status, (got_status, status, body)
    if not openai and (error_type or status == 422):
        assert body["error_type"] == (error_type or "Validation"), body
    if openai:
        err = body["error"]
        assert set(err) == {"message", "type", "param", "code"} and err["code"] == status, body
        assert needle in err["message"], (needle, body)
    else:
        assert set(body) == {"error", "error_type"}, body
        assert needle in body["error"], (needle, body)


# TEI's schemas (tests/serve/tei_schemas.json says which version they are from)
SCHEMAS = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "tei_schemas.json")))["schemas"]
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "integer": int, "number": (int, float)}


def validate(value, schema, where="$"):
    """Asserts value has the JSON shape of schema (a name in SCHEMAS, or a
    schema): $ref, oneOf, allOf, type, nullable, enum, required, properties,
    additionalProperties, items, minItems, maxItems, minimum."""
    if isinstance(schema, str):
        return validate(value, SCHEMAS[schema], f"{where}<{schema}>")
    if "$ref" in schema:
        return validate(value, schema["$ref"].split("/")[-1], where)
    if "allOf" in schema:
        return all(validate(value, s, where) for s in schema["allOf"])
    if "oneOf" in schema:
        fits = 0
        for s in schema["oneOf"]:
            try:
                fits += validate(value, s, where)
            except AssertionError:
                pass
        assert fits >= 1, (where, value, schema)
        return True
    if value is None:
        assert schema.get("nullable"), (where, "null")
        return True
    want = schema.get("type")
    if want:
        assert isinstance(value, TYPES[want]) and not (
            want in ("integer", "number") and isinstance(value, bool)), (where, value, want)
    if "enum" in schema:
        assert value in schema["enum"], (where, value, schema["enum"])
    if "minimum" in schema:
        assert value >= schema["minimum"], (where, value)
    if isinstance(value, dict):
        for k in schema.get("required", []):
            assert k in value, (where, "lacks", k, value)
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                validate(v, props[k], f"{where}.{k}")
            elif "additionalProperties" in schema:
                validate(v, schema["additionalProperties"], f"{where}.{k}")
            else:
                assert not props, (where, "has", k, "which the schema has not")
    if isinstance(value, list):
        assert len(value) >= schema.get("minItems", 0), (where, value)
        assert len(value) <= schema.get("maxItems", len(value)), (where, value)
        for i, v in enumerate(value):
            validate(v, schema.get("items", {}), f"{where}[{i}]")
    return True


TEXTS = ["the cat sat on the mat.", "a dog runs fast!", "where is the big red house?",
         "hello world"]
LONG = "the quick brown fox jumps over the lazy dog and the cat sat on the mat"


def check_shortest_numbers(s):
    """Each number of a float vector's JSON reads back (as float32) as the bits base64
    gives, and with one significant digit fewer (Python's correctly rounded %g) it
    would not: the shortest text, as numpy's float32 repr and TEI (serde_json) write."""
    c = s.conn()
    c.request("POST", "/v1/embeddings", body=json.dumps({"input": TEXTS}).encode())
    body = c.getresponse().read().decode()
    texts = [m.split(",") for m in re.findall(r'"embedding":\[([^\]]*)\]', body)]
    status, b64 = s.post("/v1/embeddings", {"input": TEXTS, "encoding_format": "base64"})
    assert len(texts) == len(TEXTS) and status == 200, body
    for row, d in zip(texts, b64["data"]):
        raw = base64.b64decode(d["embedding"])
        assert len(row) == len(raw) // 4, (row, len(raw))
        for text, bits in zip(row, struct.unpack(f"<{len(raw) // 4}I", raw)):
            as_float32 = struct.unpack("<f", struct.pack("<I", bits))[0]
            assert struct.unpack("<I", struct.pack("<f", float(text)))[0] == bits, (text, bits)
            mantissa = text.split("e")[0].lstrip("-").replace(".", "").strip("0")
            digits = len(mantissa) or 1
            if digits > 1:
                shorter = "%.*g" % (digits - 1, as_float32)
                assert struct.pack("<f", float(shorter)) != struct.pack("<I", bits), (text,
                                                                                        shorter)


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
    # the long text: refused without truncation (TEI's 422, OpenAI's 400), else cut as
    # tfenc embed cuts it
    check_error(s.post("/embed", {"inputs": [TEXTS[0], LONG]}), 422,
                "inputs[1]: 18 tokens, more than the model's limit of 12")
    check_error(s.post("/v1/embeddings", {"input": LONG}), 400, "input[0]: 18 tokens", True)
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
    check_shortest_numbers(s)
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
    check_error(s.post("/embed", {"inputs": 3}), 422, "inputs: expected a string or a list")
    check_error(s.post("/embed", {"inputs": ["a", 4]}), 422, "inputs[1]: expected a string")
    # TEI's Empty: an empty list, text or body is 400 (router/src/http/server.rs)
    check_error(s.post("/embed", {"inputs": []}), 400, "inputs: an empty list", False, "Empty")
    check_error(s.post("/embed", {"inputs": ["a", ""]}), 400,
                "inputs[1]: an empty string; expected a text", False, "Empty")
    check_error(s.post("/embed", {"inputs": ""}), 400, "inputs: an empty string", False, "Empty")
    check_error(s.post("/v1/embeddings", {"input": ""}), 400, "input: an empty string", True)
    check_error(s.post("/embed", {"inputs": "a", "normalize": "yes"}), 422,
                "normalize: expected true or false, got a string")
    check_error(s.post("/v1/embeddings", {"input": "a", "encoding_format": "int8"}), 400,
                "encoding_format: expected \"float\" or \"base64\"", True)
    check_error(s.post("/v1/embeddings", {"input": "a", "dimensions": 0}), 400,
                "dimensions: expected a positive integer, got 0", True)
    check_error(s.post("/v1/embeddings", {"input": "a", "dimensions": 17}), 400,
                "dimensions: 17, but the model's vectors have 16", True)
    check_error(s.post("/embed", {"inputs": "a", "dimensions_layer_norm": 1}), 422,
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
    check_error(s.post("/v1/embeddings", {"input": [24] * 11}), 400,
                "input[0]: 13 tokens, more than the model's limit of 12", True)
    # TEI's token-id inputs on /embed (once refused here), named "inputs"
    check_error(s.post("/embed", {"inputs": [[24], [24, 999]]}), 422, "inputs[1]: ids[1]: 999")
    check_error(s.post("/embed", {"inputs": "a", "prompt_name": "nope"}), 422,
                "prompt_name \"nope\"")
    check_error(s.post("/embed", b"{\"inputs\": \"a\", \"inputs\": \"b\"}"), 400, "inputs")
    check_error(s.post("/embed", {"inputs": ["a"] * 9}), 422,
                "inputs: 9 inputs, more than the server's limit of 8")
    # TEI: "model is not a re-ranker model", a Backend error (424)
    check_error(s.post("/rerank", {"query": "a", "texts": ["b"]}), 424,
                "/rerank needs a cross-encoder model; this server's model is embedding "
                "(use /v1/embeddings or /embed or /similarity)")
    check_error(s.request("GET", "/embed")[:2], 405, "/embed takes POST, not GET")
    check_error(s.request("GET", "/nope")[:2], 404, "no route /nope; the routes are "
                "/v1/embeddings, /v1/models, /embed, /embed_all, /embed_sparse, /similarity, "
                "/rerank, /predict, /, /tokenize, /decode, /info, /health, /metrics, "
                "/api-doc/openapi.json, /docs")
    metrics = s.request("GET", "/metrics")[1]  # each route's label, and the unmatched
    for route, status in (("/rerank", 424), ("/embed", 405), ("unmatched", 404)):
        assert f'tfenc_requests_total{{route="{route}",status="{status}"}}' in metrics, metrics
    check_error(s.request("POST", "/v1/nope", {})[:2], 404, "no route /v1/nope")
    # a path with a newline: one log line still, the byte as \x0A
    check_error(s.request("GET", "/no%0Awhere")[:2], 404, "no route /no\nwhere")
    assert "GET /no\\x0Awhere 404" in s.log() and "\nwhere" not in s.log(), s.log()[-300:]
    # bytes that are not UTF-8 come back as U+FFFD, in a body that is UTF-8 JSON
    check_error(s.request("GET", "/%FF%FEx")[:2], 404, "no route /\ufffd\ufffdx;")
    # a quote cut to its first 64 bytes ends between two characters
    name = "a" * 63 + "\u00e9"
    check_error(s.post("/tokenize", {"inputs": "a", "prompt_name": name}), 422,
                'prompt_name "' + "a" * 63 + '": the model has no such prompt')
    test_framing(s)
    test_nul_bytes(s)
    test_methods(s)
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


def raw_answer(port, data, source="127.0.0.1", timeout=30):
    """(status, headers, body, closed) of the server's answer to the raw bytes data, and
    whether it closed the connection after it (body: parsed JSON, else the bytes)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                    source_address=(source, 0))
    sock.sendall(data)
    r = http.client.HTTPResponse(sock, method=data.split(b" ", 1)[0].decode("latin-1"))
    r.begin()
    body = r.read()
    try:
        closed = sock.recv(1) == b""
    except ConnectionResetError:
        closed = True
    sock.close()
    json_body = body and "json" in (r.getheader("Content-Type") or "")
    return r.status, r, json.loads(body.decode("utf-8")) if json_body else body, closed


def test_framing(s):
    """A body's length said twice (RFC 9112 section 6.3: invalid framing) is 400 and the
    connection is closed, whichever length comes first."""
    body = b'{"inputs": "hello"}'
    for lengths in ((len(body), 5), (5, len(body)), (len(body), len(body))):
        head = b"".join(b"Content-Length: %d\r\n" % n for n in lengths)
        status, r, out, closed = raw_answer(s.port, b"POST /tokenize HTTP/1.1\r\nHost: x\r\n" +
                                            head + b"\r\n" + body)
        check_error((status, out), 400, "Content-Length: given 2 times (%d, then %d)" % lengths)
        assert r.getheader("Connection") == "close" and closed, (lengths, r.getheaders())
    status, r, out, closed = raw_answer(s.port, b"POST /tokenize HTTP/1.1\r\nHost: x\r\n"
                                        b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"
                                        b"\r\n13\r\n" + body + b"\r\n0\r\n\r\n")
    check_error((status, out), 400, "both Content-Length and Transfer-Encoding")
    assert closed, r.getheaders()
    # Transfer-Encoding (RFC 9112, sections 6.1, 6.3 and 7): the server reads a body only as
    # "chunked" alone; any other is answered at once, from the headers, and closed
    chunked = b"13\r\n" + body + b"\r\n0\r\n\r\n"
    for version, codings, status, needle in (
            (b"1.1", [b"gzip"], 400, "Transfer-Encoding: the final coding is gzip, not chunked"),
            (b"1.1", [b"chunked, gzip"], 400, "the final coding is gzip, not chunked"),
            (b"1.1", [b"chunked", b"gzip"], 400, "the final coding is gzip, not chunked"),
            (b"1.1", [b"gzip, chunked"], 501, "Transfer-Encoding: gzip: the server decodes no "
             "transfer coding but chunked"),
            (b"1.1", [b"chunked", b"chunked"], 400, "chunked given 2 times"),
            (b"1.1", [b"chunked, chunked"], 400, "chunked given 2 times"),
            (b"1.1", [b""], 400, "Transfer-Encoding: no coding"),
            (b"1.0", [b"chunked"], 400, "an HTTP/1.0 request with Transfer-Encoding")):
        head = b"".join(b"Transfer-Encoding: %s\r\n" % c for c in codings)
        status_got, r, out, closed = raw_answer(
            s.port, b"POST /tokenize HTTP/%s\r\nHost: x\r\n%s\r\n%s" % (version, head, chunked),
            timeout=10)
        check_error((status_got, out), status, needle)
        assert r.getheader("Connection") == "close" and closed, (codings, r.getheaders())
    for coding in (b"chunked", b"Chunked"):  # coding names are case-insensitive
        status_got, _, out, _ = raw_answer(s.port, b"POST /tokenize HTTP/1.1\r\nHost: x\r\n"
                                           b"Transfer-Encoding: %s\r\n\r\n%s" % (coding, chunked))
        assert status_got == 200 and out[0][1]["text"] == "hello", (coding, status_got, out)


def test_nul_bytes(s):
    """A NUL byte in the head, encoded (%00) or raw, never cuts what it is in: %00 in the
    path stays as written (404 naming the whole path; no route holds a '%'), a raw NUL in the
    request line or a header line is 400 and the connection closed."""
    for method, path, body in (("GET", "/health%00xyz", None), ("GET", "/nope%00zz", None),
                               ("POST", "/embed%00", {"inputs": "a"}),
                               ("GET", "/%FF%00", None)):
        status, out, _ = s.request(method, path, body)
        shown = path.replace("%FF", "\ufffd")
        check_error((status, out), 404, f"no route {shown}; the routes are")
    assert "GET /health%00xyz 404" in s.log(), s.log()[-300:]
    status, out, _ = s.request("GET", "/health?a=%00b")  # a query the routes do not read
    assert status == 200 and out == {"status": "ok"}, (status, out)
    for head, needle in (
            (b"GET /health\x00xyz HTTP/1.1\r\nHost: x\r\n",
             'the request line holds a NUL byte (in its target, after "/health")'),
            (b"GET\x00 /health HTTP/1.1\r\nHost: x\r\n",
             'the request line holds a NUL byte (in its method, after "GET")'),
            (b"GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n",
             'the header X-A holds a NUL byte (after "a")'),
            (b"GET /health HTTP/1.1\r\nX-A: a\x00\x00\r\nHost: x\r\n",
             'the header X-A holds a NUL byte (after "a")'),
            (b"POST /tokenize HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\x00, gzip\r\n",
             'the header Transfer-Encoding holds a NUL byte (after "chunked")')):
        status, r, out, closed = raw_answer(s.port, head + b"\r\n", timeout=10)
        check_error((status, out), 400, needle)
        assert r.getheader("Connection") == "close" and closed, (head, r.getheaders())
    # a folded header line (obs-fold: RFC 9112, section 5.2, lets a server refuse it)
    status, r, out, closed = raw_answer(s.port, b"GET /health HTTP/1.1\r\nHost: x\r\n"
                                        b"X-A: a\r\n b\r\n\r\n", timeout=10)
    check_error((status, out), 400, "a header line continues on the next (obs-fold)")
    # libmicrohttpd's own answer to one in a header's name (no ':' before it)
    status, _, _, closed = raw_answer(s.port, b"GET /health HTTP/1.1\r\nX-\x00A: a\r\n\r\n")
    assert status == 400 and closed, status
    # heads that hold no NUL: bare LF line ends, spaces, a long header, are served
    for head in (b"GET /health HTTP/1.1\nHost: x\nX-A:   a  \n",
                 b"GET  /health HTTP/1.1\r\nHost: x\r\nX-Empty:\r\nX-B: b\r\n",
                 b"GET /health HTTP/1.1\r\nHost: x\r\nX-Long: " + b"v" * 12000 + b"\r\n"):
        end = b"\n" if head.endswith(b"  \n") else b"\r\n"
        status, _, out, _ = raw_answer(s.port, head + b"Connection: close" + end + end,
                                       timeout=10)
        assert status == 200 and out == {"status": "ok"}, (head[:40], status, out)


def test_methods(s):
    """HEAD on a GET route answers as GET without the body (RFC 9110, section 9.3.2); a 405
    says which methods the route takes, with TEI's closest error_type; an empty body says so."""
    for path in ("/health", "/info", "/metrics"):
        status, r, body, _ = raw_answer(s.port, b"HEAD %s HTTP/1.1\r\nHost: x\r\n"
                                        b"Connection: close\r\n\r\n" % path.encode())
        get_status, get_body, _ = s.request("GET", path)
        assert status == 200 and get_status == 200, (path, status)
        assert body == b"" and int(r.getheader("Content-Length")) > 0, (path, body, r.getheaders())
    status, _, body, _ = raw_answer(s.port, b"HEAD /embed HTTP/1.1\r\nHost: x\r\n"
                                    b"Connection: close\r\n\r\n")
    assert status == 405, status
    status, out, r = s.request("PUT", "/health")
    check_error((status, out), 405, "/health takes GET (or HEAD), not PUT")
    assert out["error_type"] == "Validation" and r.getheader("Allow") == "GET, HEAD", \
        (out, r.getheaders())
    status, out, r = s.request("GET", "/embed")
    assert out["error_type"] == "Validation" and r.getheader("Allow") == "POST", (out, r)
    assert s.request("GET", "/nope")[1]["error_type"] == "Validation"
    check_error(s.post("/embed", b""), 400, "the request body is empty; expected a JSON object",
                False, "Empty")
    check_error(s.post("/v1/embeddings", b""), 400, "the request body is empty", True)


def cosine64(a, b):
    """The cosine of two vectors in float64 (TEI's similarity(): 1 - the
    cosine distance)."""
    ab = math.fsum(x * y for x, y in zip(a, b))
    return ab / math.sqrt(math.fsum(x * x for x in a) * math.fsum(y * y for y in b))


def test_tei_routes(s):
    """Each TEI route's answer against TEI's schema (tei_schemas.json) and the
    CLI's numbers; POST /, /similarity, /decode, token ids, "Left"
    truncation, /v1/models, the OpenAPI document and /docs."""
    want = tfenc_json("embed", "--model", ST, "--json", *TEXTS)["embeddings"]
    status, got = s.post("/embed", {"inputs": TEXTS})  # normalize: TEI's true
    assert status == 200 and validate(got, "EmbedResponse"), got
    close(got, want, "/embed vs tfenc embed")
    assert all(abs(math.fsum(x * x for x in v) - 1) < 1e-6 for v in got), got
    assert s.post("/", {"inputs": TEXTS})[1] == got  # POST /: the model's route, /embed
    validate(s.post("/v1/embeddings", {"input": TEXTS[0], "user": "u1"})[1],
             "OpenAICompatResponse")
    # token ids as /embed inputs: the vectors of their text
    ids = [[t["id"] for t in toks] for toks in
           s.post("/tokenize", {"inputs": TEXTS[:2], "add_special_tokens": False})[1]]
    assert s.post("/embed", {"inputs": ids})[1] == got[:2]
    assert s.post("/embed", {"inputs": ids[0]})[1] == got[:1]
    # /decode: the ids' text, TEI's skip_special_tokens true by default
    status, texts = s.post("/decode", {"ids": ids})
    assert status == 200 and validate(texts, "DecodeResponse"), texts
    assert [t.replace(" ", "") for t in texts] == [t.replace(" ", "") for t in TEXTS[:2]], texts
    with_cls = s.post("/tokenize", {"inputs": "hello world"})[1][0]
    assert s.post("/decode", {"ids": [t["id"] for t in with_cls]})[1] == ["hello world"]
    assert s.post("/decode", {"ids": [t["id"] for t in with_cls],
                              "skip_special_tokens": False})[1] == ["[CLS] hello world [SEP]"]
    validate(s.post("/tokenize", {"inputs": TEXTS[:2]})[1], "TokenizeResponse")
    # /similarity: the cosine of the CLI's vectors, in float64
    status, sims = s.post("/similarity", {"inputs": {"source_sentence": TEXTS[0],
                                                     "sentences": TEXTS[1:]}})
    assert status == 200 and validate(sims, "SimilarityResponse"), sims
    for g, v in zip(sims, want[1:]):
        assert abs(g - cosine64(want[0], v)) <= TOL, (sims, g)
    # "Left" keeps the tail: the vector of the text from the token the cut keeps
    # (the words from the end, as long as their tokens fit 10: with [CLS] and [SEP]
    # the limit, 12; a word cut in two would not tokenize alone as in the text)
    words = LONG.split()
    counts = [len(s.post("/tokenize", {"inputs": w, "add_special_tokens": False})[1][0])
              for w in words]
    k = len(words)
    while sum(counts[k - 1:]) <= 10:
        k -= 1
    tail = " ".join(words[k:])
    assert len(tail) < len(LONG) and sum(counts[k:]) >= 9, (tail, counts)
    status, left = s.post("/embed", {"inputs": LONG, "truncate": True,
                                     "truncation_direction": "Left"})
    assert status == 200 and left == s.post("/embed", {"inputs": tail})[1], (left, tail)
    right = s.post("/embed", {"inputs": LONG, "truncate": True})[1]
    assert right == s.post("/embed", {"inputs": LONG, "truncate": True,
                                      "truncation_direction": "right"})[1] != left
    assert s.post("/similarity", {"inputs": {"source_sentence": LONG, "sentences": [tail]},
                                  "parameters": {"truncate": True,
                                                 "truncation_direction": "Left"}})[1][0] > 0.999
    # a refused input named by its own field and index
    check_error(s.post("/similarity", {"inputs": {"source_sentence": LONG, "sentences": ["a"]}}),
                422, "inputs.source_sentence[0]: 18 tokens, more than the model's limit of 12")
    check_error(s.post("/similarity", {"inputs": {"source_sentence": "a",
                                                  "sentences": ["b", LONG]}}),
                422, "inputs.sentences[1]: 18 tokens, more than the model's limit of 12")
    # /embed_all: TEI's EmbedAllResponse, every token's vector (its values:
    # test_multi_vector_routes.py)
    status, tokens = s.post("/embed_all", {"inputs": ["a", "a dog"]})
    assert status == 200 and validate(tokens, "EmbedAllResponse"), tokens
    assert [len(t) for t in tokens] == [3, 4] and len(tokens[1][0]) == 16, tokens
    # bad fields: TEI's ErrorResponse naming the field
    for body, path, needle in (
            ({"inputs": {"source_sentence": "a"}}, "/similarity",
             "inputs.sentences: missing; expected a list of strings"),
            ({"inputs": {"source_sentence": "a", "sentences": ["b", 3]}}, "/similarity",
             "inputs.sentences[1]: expected a string, got a number"),
            ({"inputs": {"source_sentence": "a", "sentences": ["b"] * 8}}, "/similarity",
             "inputs.sentences: 8 inputs, more than the server's limit of 7"),
            ({"inputs": {"source_sentence": "a", "sentences": ["b"]},
              "parameters": {"truncate": 1}}, "/similarity",
             "parameters.truncate: expected true or false, got a number"),
            ({"inputs": "a", "truncation_direction": "Up"}, "/embed",
             "truncation_direction: expected \"Left\" or \"Right\", got \"Up\""),
            ({"ids": "a"}, "/decode", "ids: expected a list of token ids or a list of such"),
            ({"ids": [1, -2]}, "/decode", "ids[0][1]: expected a token id"),
            ({"ids": [[2], [999]]}, "/decode", "ids[1]: "),
            ({"inputs": "a"}, "/predict", "/predict needs a classifier model")):
        status, err = s.post(path, body)
        assert status in (422, 424) and validate(err, "ErrorResponse"), (path, body, err)
        check_error((status, err), status, needle)
    # /info: TEI's Info; its model_type TEI's {"embedding": {"pooling"}} (and dim, similarity)
    info = s.request("GET", "/info")[1]
    assert validate(info, "Info") and info["tokenization_workers"] == 1, info
    assert info["model_type"] == {"embedding": {"pooling": "mean"}}, info
    assert info["served_model_name"] == info["model_id"] == "st_mean_norm", info
    # /v1/models: OpenAI's list
    status, models = s.request("GET", "/v1/models")[:2]
    assert status == 200 and models["object"] == "list" and len(models["data"]) == 1, models
    assert set(models["data"][0]) == {"id", "object", "created", "owned_by"}, models
    assert models["data"][0]["id"] == "st_mean_norm" and models["data"][0]["object"] == "model"
    # the OpenAPI document: every route, every schema reference resolved; /docs holds it
    status, doc = s.request("GET", "/api-doc/openapi.json")[:2]
    routes = s.request("GET", "/nope")[1]["error"].split("the routes are ")[1].split(", ")
    assert status == 200 and list(doc["paths"]) == routes, (list(doc["paths"]), routes)
    def refs(x):
        if isinstance(x, dict):
            return [x["$ref"]] if "$ref" in x else [r for v in x.values() for r in refs(v)]
        return [r for v in x for r in refs(v)] if isinstance(x, list) else []
    found = refs(doc)
    assert len(found) > 40 and all(r.split("/")[-1] in doc["components"]["schemas"]
                                   for r in found), found
    for name in ("EmbedResponse", "SimilarityRequest", "DecodeRequest", "Info"):
        assert name in doc["components"]["schemas"], name
    status, html, r = s.request("GET", "/docs")
    assert status == 200 and r.getheader("Content-Type").startswith("text/html"), status
    spec = html.split('<script type="application/json" id="spec">')[1].split("</script>")[0]
    assert json.loads(spec) == doc and "src=" not in html and "http" not in html.lower().replace(
        "http-equiv", ""), html[:300]
    # TEI's metric names beside tfenc's
    metrics = s.request("GET", "/metrics")[1]
    for name in ("te_request_count ", "te_request_success ", 'te_request_failure{err="backend"} ',
                 "te_queue_size 0", "te_request_input_length_count ", "te_batch_next_size_count ",
                 "te_batch_next_tokens_count ", "te_request_duration_count ",
                 "te_request_queue_duration_count ", "te_request_inference_duration_count "):
        assert name in metrics, (name, metrics)


def test_openai_limits(s):
    """OpenAI's 2048 inputs on /v1/embeddings, TEI's --max-client-batch
    default (32) on TEI's routes."""
    status, out = s.post("/v1/embeddings", {"input": ["a"] * 2048, "user": "someone"})
    assert status == 200 and len(out["data"]) == 2048, status
    check_error(s.post("/v1/embeddings", {"input": ["a"] * 2049}), 400,
                "input: 2049 inputs, more than the server's limit of 2048 a request "
                "(OpenAI's)", True)
    assert s.post("/embed", {"inputs": ["a"] * 32})[0] == 200
    check_error(s.post("/embed", {"inputs": ["a"] * 33}), 422,
                "inputs: 33 inputs, more than the server's limit of 32 a request "
                "(--max-client-batch)")
    assert s.request("GET", "/info")[1]["max_client_batch_size"] == 32


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
    assert info["model_type"] == {"embedding": {"pooling": "mean"}}, info
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
    assert "te_queue_size 0" in metrics, metrics
    line = [l for l in metrics.splitlines() if l.startswith("te_batch_next_size_count")][0]
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
    long_query = " ".join([q] * 6)  # its tokens: 6 times q's, and [CLS] [SEP] once
    query_tokens = 6 * (len(s.post("/tokenize", {"inputs": q}, headers=auth)[1][0]) - 2) + 2
    check_error(s.post("/rerank", {"query": long_query, "texts": ["a dog."]}, headers=auth), 422,
                "query: %d tokens, more than the model's limit of 32" % query_tokens)
    check_error(s.post("/rerank", {"query": q, "texts": ["a dog.", " ".join(docs * 3)]},
                       headers=auth), 422, "texts[1] with the query: ")
    check_error(s.post("/rerank", {"query": q, "texts": docs}), 401, "API key")
    assert s.post("/rerank", {"query": q, "texts": docs})[1]["error_type"] == "Validation"
    check_error(s.post("/rerank", {"query": q, "texts": docs},
                       headers={"Authorization": "Bearer wrong"}), 401, "API key")
    assert s.request("GET", "/health")[0] == 200  # no key needed
    assert curl(s.port, "/rerank", "-H", "Authorization: Bearer sekret", "-d",
                json.dumps({"query": q, "texts": docs}))[0] == 200
    check_error(s.post("/embed", {"inputs": "a"}, headers=auth), 424,
                "/embed needs an embedding model; this server's model is cross-encoder "
                "(use /rerank or /predict)")
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
    check_error(s.post("/predict", {"inputs": [["a", "b"], ["c"]]}), 422,
                "inputs[1]: a single text among pairs")
    # TEI's PredictInput: a batch of [text] lists, and of pairs; [text] alone is one input
    status, batch = s.post("/predict", {"inputs": [[t] for t in texts]})
    assert status == 200 and batch == got, (batch, got)
    assert s.post("/predict", {"inputs": [texts[0]]})[1] == one
    validate(batch, "PredictResponse")
    validate(one, "PredictResponse")
    status, pairs = s.post("/predict", {"inputs": [[texts[0], texts[1]]]})
    assert status == 200 and pairs == [s.post("/predict", {"inputs": texts[:2]})[1]], pairs
    assert s.post("/", {"inputs": [[t] for t in texts]})[1] == got  # POST /: /predict
    check_error(s.post("/predict", {"inputs": [["a", "b", "c"]]}), 422,
                "inputs[0]: expected [text] or a pair [text, text], got an array of more than 2")
    validate(s.request("GET", "/info")[1], "Info")
    assert curl(s.port, "/predict", "-d", json.dumps({"inputs": texts[0]}))[0] == 200
    s.stop()


def test_rerank_activation():
    """A cross-encoder whose config.json names Identity (as sentence-transformers
    v4 saves ms-marco models): /rerank's scores are the logits
    (gen_ce_activation.py's float64 ones), as CrossEncoder.predict's, and
    raw_scores the same; tfenc rerank agrees."""
    folder = os.path.join(sys.argv[2], "ce_activation", "identity")
    exp = json.load(open(os.path.join(folder, "expected.json")))
    q, docs = exp["inputs"][0][0], [d for _, d in exp["inputs"]]
    logits = [row[0] for row in exp["out"]]
    s = Server(folder)
    for raw in (False, True):
        status, got = s.post("/rerank", {"query": q, "texts": docs, "raw_scores": raw})
        assert status == 200 and len(got) == len(docs), got
        assert [g["index"] for g in got] == sorted(range(len(docs)), key=lambda i: -logits[i])
        for g in got:
            assert abs(g["score"] - logits[g["index"]]) <= TOL, (raw, g, logits)
    s.stop()
    for r in tfenc_json("rerank", "--model", folder, "--json", q, *docs):
        assert abs(r["score"] - logits[r["index"]]) <= TOL, (r, logits)


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
    assert "te_queue_size 0" in s.request("GET", "/metrics")[1]
    s.stop()


def test_refused_kinds():
    """A folder of a kind that no route serves (a token classifier: TEI has no route for
    it) is refused at start, naming its kind and those served, before anything listens."""
    port_file = os.path.join(TMP, "port-token-classifier")
    run = subprocess.run([TFENC, "serve", "--model",
                          os.path.join(FAMILIES, "roberta_token_classifier"), "--port", "0",
                          "--port-file", port_file], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1, (run.returncode, run.stderr)
    assert "roberta_token_classifier: a token-classifier folder; tfenc serve serves " \
           "embedding, image-embedding, multi-vector, sparse-embedding, cross-encoder, " \
           "classifier and image-classifier folders" in run.stderr, run.stderr
    assert not os.path.exists(port_file)


def test_latin1_folder_name():
    """A folder whose name is not UTF-8: /info and /v1/embeddings name the model with
    U+FFFD for the bytes, in bodies that are UTF-8 JSON."""
    folder = os.path.join(TMP.encode(), b"caf\xe9")
    os.symlink(os.path.abspath(ST), folder)
    s = Server(folder)
    info = s.request("GET", "/info")[1]
    assert info["model_id"] == "caf\ufffd", info
    status, out = s.post("/v1/embeddings", {"input": "hello"})
    assert status == 200 and out["model"] == "caf\ufffd", out
    s.stop()
    # the log shows the byte as \xE9: every line of it is UTF-8
    log = open(s.log_path, "rb").read()
    assert b"tfenc serve: caf\\xE9 (embedding) on http://127.0.0.1:" in log, log[:200]
    log.decode("utf-8")


def test_every_source_embed_runs():
    """One model resolver (tf_model_resolve, tf_pipeline_load): what tfenc embed runs, the
    server serves, with the same numbers: libtfenc's own folder (tfenc create's file and a
    vocab.txt, no config.json: it once answered "config.json: cannot open") and that weights
    file alone (the vocab.txt beside it)."""
    folder = os.path.join(TMP, "own")
    os.mkdir(folder)
    weights = os.path.join(folder, "model.safetensors")
    subprocess.run([TFENC, "create", weights, "--vocab",
                    os.path.join(sys.argv[2], "wordpiece", "vocab.txt"), "--d-model", "32",
                    "--heads", "2", "--d-ff", "64"], check=True, capture_output=True)
    os.symlink(os.path.join(sys.argv[2], "wordpiece", "vocab.txt"),
               os.path.join(folder, "vocab.txt"))
    want = tfenc_json("embed", "--model", folder, "--json", "the cat sat.", "hello")
    for source in (folder, weights):
        s = Server(source)
        status, got = s.post("/embed", {"inputs": ["the cat sat.", "hello"], "normalize": False})
        assert status == 200, got
        close(got, want["embeddings"], f"tfenc serve --model {source}")
        assert s.request("GET", "/info")[1]["model_type"] == {"embedding": {"pooling": "mean"}}
        s.stop()


def half_requests(port, count, source):
    """count connections from source, each sending half a request's headers."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10,
                                        source_address=(source, 0))
        sock.sendall(b"POST /embed HTTP/1.1\r\nHost: x\r\nContent-Ty")
        socks.append(sock)
    return socks


def answer_of(sock):
    """What the server sent on sock before closing it (b"" for nothing)."""
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except ConnectionResetError:
        pass
    sock.close()
    return data


def closed_by_server(sock, trickle, rounds=100):
    """Sends trickle a byte at a time, one every 0.1 s, until the server closes sock
    (True) or rounds bytes have gone (False)."""
    sock.settimeout(0.1)
    for i in range(rounds):
        try:
            sock.sendall(trickle[i % len(trickle):i % len(trickle) + 1])
            if sock.recv(4096) == b"":
                return True
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def metric(s, name):
    """The value of one sample of s's /metrics."""
    lines = s.request("GET", "/metrics")[1].splitlines()
    return int(next(l for l in lines if l.startswith(name + " ")).split()[1])


def answered(socks):
    """The first bytes each of socks has to read now (b"" for none)."""
    readable, _, _ = select.select(socks, [], [], 0)
    return [sock.recv(4096) if sock in readable else b"" for sock in socks]


def test_slow_loris():
    """--max-concurrent 1 and 300 connections from one address that send half a request:
    the address holds at most --max-client-connections (its default, half of the default
    --max-connections: 128 of 257), those beyond are answered 429, and another client is
    answered all along. Then 300 connections from three addresses fill --max-connections: a
    new client is answered 503, and served again once they are gone."""
    s = Server(ST, "--max-concurrent", "1")
    loris = half_requests(s.port, 300, "127.0.0.2")
    for _ in range(5):
        status, out = s.post("/embed", {"inputs": TEXTS[0]})
        assert status == 200, out
    answers = answered(loris)  # refusals are written when a connection comes
    refused = [a for a in answers if a]
    assert len(refused) == 300 - 128 and all(a.startswith(b"HTTP/1.1 429 ") for a in refused)
    body = json.loads(refused[0].split(b"\r\n\r\n", 1)[1])
    assert set(body) == {"error", "error_type"} and body["error_type"] == "Overloaded", body
    assert "127.0.0.2 holds 128 connections, the server's limit for one client " \
           "(--max-client-connections)" in body["error"], body
    assert metric(s, 'tfenc_connections_refused_total{reason="max_client_connections"}') == 172
    for sock in loris:
        sock.close()
    for _ in range(100):  # until the server has seen them go (/metrics' own is open)
        if metric(s, "tfenc_connections_open") == 1:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(("connections closed by their clients still open",
                              metric(s, "tfenc_connections_open")))
    # three addresses, 100 connections each: the server's 257 are taken
    loris = [sock for a in (4, 5, 6) for sock in half_requests(s.port, 100, f"127.0.0.{a}")]
    status, _, out, _ = raw_answer(s.port, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    check_error((status, out), 503, "the server holds 257 connections, its limit "
                "(--max-connections)")
    refused = [a for a in answered(loris) if a]  # more when /metrics' was not yet forgotten
    assert len(refused) >= 300 - 257 and all(a.startswith(b"HTTP/1.1 503 ") for a in refused)
    for sock in loris:
        sock.close()
    for _ in range(100):  # the closed ones are forgotten as libmicrohttpd cleans them up
        status = s.request("GET", "/health")[0]
        if status == 200:
            break
        time.sleep(0.05)
    assert status == 200, status
    s.stop()


def test_slow_requests():
    """Half a request is closed after --request-timeout, a request sent a byte at a time
    too, and a request line that never ends after --keep-alive-timeout."""
    s = Server(ST, "--request-timeout", "1", "--keep-alive-timeout", "1")
    trickled = {}  # what closed_by_server said, by what was trickled

    def trickle(first, rest):
        sock = socket.create_connection(("127.0.0.1", s.port))
        sock.sendall(first)
        trickled[first + rest] = closed_by_server(sock, rest)

    tricklers = [threading.Thread(target=trickle, args=args) for args in
                 ((b"POST /embed HTTP/1.1\r\n", b"Host: x\r\n"), (b"", b"GET /embed"))]
    for t in tricklers:
        t.start()
    loris = half_requests(s.port, 10, "127.0.0.1")
    assert s.post("/embed", {"inputs": TEXTS[0]})[0] == 200
    assert [answer_of(sock) for sock in loris] == [b""] * 10  # closed, unanswered
    for t in tricklers:
        t.join()
    assert trickled == {b"POST /embed HTTP/1.1\r\nHost: x\r\n": True, b"GET /embed": True}, \
        ("a request sent a byte at a time, or a request line that never ends, kept open",
         trickled)
    assert metric(s, 'tfenc_connections_timed_out_total{reason="request"}') == 11
    assert metric(s, 'tfenc_connections_timed_out_total{reason="keep_alive"}') == 1
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


def test_signal_to_every_thread():
    """SIGTERM sent to one thread of the server, each in turn (tgkill), stops
    it as the process's would: the BLAS's worker threads, started when the
    library loads, block no signal, and one took the signal's default action
    (the process killed, exit status -15, nothing finished)."""
    libc = ctypes.CDLL(None, use_errno=True)
    sys_tgkill = 234  # x86-64's tgkill(2)
    for target in range(64):
        s = Server(ST)
        tids = sorted(int(t) for t in os.listdir(f"/proc/{s.proc.pid}/task"))
        if target >= len(tids):
            s.proc.kill()
            s.proc.wait()
            assert target >= 3, ("threads", tids)  # main, the BLAS's worker, the listener
            break
        assert libc.syscall(sys_tgkill, s.proc.pid, tids[target], signal.SIGTERM) == 0
        try:
            rc = s.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = "still running 30 s after SIGTERM"
        assert rc == 0 and "SIGTERM: finishing" in s.log(), ("thread", target, "of", len(tids),
                                                             rc, s.log())


def main():
    s = Server(ST, "--max-client-batch", "8", "--payload-limit", "4096")
    try:
        test_embeddings(s)
        test_tokenize(s)
        test_errors(s)
        test_tei_routes(s)
        test_curl_routes(s)
        s.stop()
        s = Server(ST)
        test_openai_limits(s)
        s.stop()
        s = Server(ST)
        test_many_clients(s)
        lines = [l for l in s.log().splitlines() if l.startswith("POST ")]
        assert len(lines) >= 64 * 50 and all(" queue_ms=" in l for l in lines), lines[:3]
        s.stop()
        test_dimensions_layer_norm_default()
        test_heads()
        test_rerank_activation()
        test_back_pressure_and_cancel()
        test_refused_kinds()
        test_latin1_folder_name()
        test_every_source_embed_runs()
        test_slow_loris()
        test_slow_requests()
        test_sigterm_under_load()
        test_signal_to_every_thread()
    finally:
        for server in SERVERS:
            if server.proc.poll() is None:
                server.proc.kill()
    print("serve: all routes, errors, UTF-8 bodies, framing, 64 x 50 clients, "
          "--dimensions-layer-norm, back-pressure, cancel, refused kinds, slow loris, SIGTERM: ok")


if __name__ == "__main__":  # test_sparse_routes.py and test_multi_vector_routes.py import it
    main()
