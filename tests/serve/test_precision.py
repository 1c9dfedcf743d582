"""test_precision.py TFENC DATA_DIR — tfenc serve's "precision" on /embed
(TEI) and /v1/embeddings (OpenAI): int8, uint8, binary and ubinary answer
sentence-transformers' quantize_embeddings of the request's own vectors
(sentence_transformers/quantization.py in numpy's float32 arithmetic, on the
floats the same request answers without it) as JSON integers, or with
encoding_format "base64" as the base64 of each row's bytes; "float32" and
no precision answer the floats unchanged; a bad value, or a request whose
vectors leave a dimension without a range (one input), is refused in the
route's error shape naming the field and the value; the OpenAPI document
names the field and the library's precisions."""
import base64
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

TFENC, DATA = sys.argv[1], os.path.join(sys.argv[2], "pipelines")
ST = os.path.join(DATA, "st_mean_norm")
TEXTS = ["the cat sat on the mat", "a dog runs fast", "where is the big red house?",
         "hello world"]
PRECISIONS = ("float32", "int8", "uint8", "binary", "ubinary")
TMP = tempfile.mkdtemp()


class Server:
    """tfenc serve on a free loopback port, its stderr in a file."""

    def __init__(self, model):
        self.port_file = os.path.join(TMP, "port")
        self.log_path = os.path.join(TMP, "log")
        self.proc = subprocess.Popen(
            [TFENC, "serve", "--model", model, "--port", "0", "--port-file", self.port_file],
            stderr=open(self.log_path, "wb"))
        for _ in range(500):
            if os.path.exists(self.port_file):
                break
            assert self.proc.poll() is None, open(self.log_path).read()
            time.sleep(0.01)
        self.port = int(open(self.port_file).read())

    def request(self, method, path, body=None):
        """(status, parsed JSON) of one request."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request(method, path, body=None if body is None else json.dumps(body).encode())
        r = c.getresponse()
        out = json.loads(r.read().decode("utf-8"))
        c.close()
        return r.status, out

    def post(self, path, body):
        return self.request("POST", path, body)


def reference(x, precision):
    """quantize_embeddings of float32 rows x over their own ranges: numpy's
    float32 arithmetic, truncated by astype; the bits packed row by row."""
    x = np.asarray(x, dtype=np.float32)
    if precision in ("int8", "uint8"):
        starts = x.min(axis=0)
        steps = (x.max(axis=0) - starts) / 255
        q = (x - starts) / steps
        return (q - 128).astype(np.int8) if precision == "int8" else q.astype(np.uint8)
    bits = np.packbits(x > 0, axis=-1)
    return (bits - 128).astype(np.int8) if precision == "binary" else bits


def check_error(status_body, status, needle, openai=False):
    got_status, body = status_body
    assert got_status == status, (got_status, status, body)
    if openai:
        err = body["error"]
        assert err["code"] == status and err["param"] == "precision", body
        assert needle in err["message"], (needle, body)
    else:
        assert set(body) == {"error", "error_type"} and body["error_type"] == "Validation", body
        assert needle in body["error"], (needle, body)


def integers(rows):
    assert all(isinstance(v, int) for row in rows for v in row), rows
    return np.array(rows)


def test_tei(s):
    status, floats = s.post("/embed", {"inputs": TEXTS})
    assert status == 200, floats
    for p in PRECISIONS[1:]:
        status, got = s.post("/embed", {"inputs": TEXTS, "precision": p})
        assert status == 200, got
        want = reference(floats, p)
        assert np.array_equal(integers(got), want), (p, got, want)
    assert s.post("/embed", {"inputs": TEXTS, "precision": "float32"}) == (200, floats)
    assert s.post("/embed", {"inputs": TEXTS, "precision": None}) == (200, floats)
    # dimensions first, then the quantization of what is answered
    status, d8 = s.post("/embed", {"inputs": TEXTS, "dimensions": 8})
    status, got = s.post("/embed", {"inputs": TEXTS, "dimensions": 8, "precision": "ubinary"})
    assert np.array_equal(integers(got), reference(d8, "ubinary")), got


def test_openai(s):
    status, out = s.post("/v1/embeddings", {"input": TEXTS})
    floats = [d["embedding"] for d in out["data"]]
    for p in PRECISIONS[1:]:
        status, out = s.post("/v1/embeddings", {"input": TEXTS, "precision": p})
        assert status == 200 and out["object"] == "list", out
        want = reference(floats, p)
        assert np.array_equal(integers([d["embedding"] for d in out["data"]]), want), (p, out)
        status, out = s.post("/v1/embeddings", {"input": TEXTS, "precision": p,
                                                "encoding_format": "base64"})
        raw = [base64.b64decode(d["embedding"]) for d in out["data"]]
        assert raw == [row.tobytes() for row in want], (p, raw, want)
    status, out = s.post("/v1/embeddings", {"input": TEXTS, "precision": "float32",
                                            "encoding_format": "base64"})
    raw = b"".join(base64.b64decode(d["embedding"]) for d in out["data"])
    assert raw == np.array(floats, dtype="<f4").tobytes()


def test_refused(s):
    names = '"float32", "int8", "uint8", "binary" or "ubinary"'
    check_error(s.post("/embed", {"inputs": TEXTS, "precision": "int4"}), 422,
                f'precision: expected {names}, got "int4"')
    check_error(s.post("/embed", {"inputs": TEXTS, "precision": 8}), 422,
                "precision: expected a string, got a number")
    check_error(s.post("/v1/embeddings", {"input": TEXTS, "precision": "INT8"}), 400,
                f'precision: expected {names}, got "INT8"', openai=True)
    # one input: every dimension's range is one value
    check_error(s.post("/embed", {"inputs": TEXTS[0], "precision": "int8"}), 422,
                'precision "int8": embeddings: dimension 0 has no range to quantize')
    check_error(s.post("/v1/embeddings", {"input": [TEXTS[0], TEXTS[0]], "precision": "uint8"}),
                400, 'precision "uint8": embeddings: dimension 0 has no range to quantize',
                openai=True)
    status, one = s.post("/embed", {"inputs": TEXTS[0], "precision": "binary"})
    assert status == 200 and len(one) == 1, one  # the bits need no range


def test_openapi(s):
    status, doc = s.request("GET", "/api-doc/openapi.json")
    assert status == 200
    schemas = doc["components"]["schemas"]
    assert schemas["Precision"] == {"enum": list(PRECISIONS), "type": "string"}, schemas["Precision"]
    for name in ("EmbedRequest", "OpenAICompatRequest"):
        field = schemas[name]["properties"]["precision"]
        assert field["allOf"] == [{"$ref": "#/components/schemas/Precision"}], field
        assert field["default"] == "float32", field


def main():
    s = Server(ST)
    try:
        test_tei(s)
        test_openai(s)
        test_refused(s)
        test_openapi(s)
        s.proc.terminate()
        assert s.proc.wait(timeout=60) == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
    print("serve precision: /embed, /v1/embeddings (integers, base64), refusals, OpenAPI: ok")


main()
