"""test_precision.py TFENC DATA_DIR — tfenc serve's "precision" on /embed
(TEI), /v1/embeddings (OpenAI) and /embed_all (TEI's every token's vector):
int8, uint8, binary and ubinary answer sentence-transformers'
quantize_embeddings of the request's own vectors
(sentence_transformers/quantization.py in numpy's float32 arithmetic, on the
floats the same request answers without it; /embed_all: the rows of all
its inputs together, tests/data/gen_quantize.py multi_vector_reference) as
JSON integers, or with encoding_format "base64" as the base64 of each row's
bytes; "float32" and no precision answer the floats unchanged; a bad value,
or a request whose vectors leave a dimension without a range (one input),
is refused in the route's error shape naming the field and the value; with
tfenc serve --calibration FILE.npy the int8 / uint8 ranges are the file's
rows' (quantize_embeddings' calibration_embeddings), one input included, a
request of another width ("dimensions") refused naming both; a calibration
file of another width, or for a model without quantized vectors, refused
at start; the OpenAPI document names the field and the library's
precisions."""
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
sys.path.insert(0, sys.argv[2])
from gen_quantize import multi_vector_reference, ranges_of  # noqa: E402
from gen_quantize import reference as quantize_reference  # noqa: E402

ST = os.path.join(DATA, "st_mean_norm")
COLBERT = os.path.join(sys.argv[2], "colbert", "answerai_like")
CALIBRATION_TEXTS = ["the quick brown fox", "how many legs does a cat have",
                     "a red house on the hill", "dogs and cats"]
TEXTS = ["the cat sat on the mat", "a dog runs fast", "where is the big red house?",
         "hello world"]
PRECISIONS = ("float32", "int8", "uint8", "binary", "ubinary")
TMP = tempfile.mkdtemp()


class Server:
    """tfenc serve on a free loopback port, its stderr in a file."""

    def __init__(self, model, *flags):
        self.port_file = os.path.join(TMP, "port")
        self.log_path = os.path.join(TMP, "log")
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.proc = subprocess.Popen(
            [TFENC, "serve", "--model", model, "--port", "0", "--port-file", self.port_file,
             *flags], stderr=open(self.log_path, "wb"))
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

    def stop(self):
        """SIGTERM: exit 0; killed if it does not."""
        self.proc.terminate()
        try:
            assert self.proc.wait(timeout=60) == 0
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


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
    check_error(s.post("/embed", {"inputs": TEXTS[0], "precision": "uint8"}), 422,
                "(calibration embeddings that differ there) (this server runs without "
                "--calibration)")
    check_error(s.post("/v1/embeddings", {"input": [TEXTS[0], TEXTS[0]], "precision": "uint8"}),
                400, 'precision "uint8": embeddings: dimension 0 has no range to quantize',
                openai=True)
    status, one = s.post("/embed", {"inputs": TEXTS[0], "precision": "binary"})
    assert status == 200 and len(one) == 1, one  # the bits need no range


def test_embed_all(s):
    """/embed_all: every input's token rows quantized together."""
    status, floats = s.post("/embed_all", {"inputs": TEXTS})
    assert status == 200, floats
    matrices = [np.array(m, np.float32) for m in floats]
    for p in PRECISIONS[1:]:
        status, got = s.post("/embed_all", {"inputs": TEXTS, "precision": p})
        assert status == 200, got
        want = multi_vector_reference(matrices, p)
        assert len(got) == len(want), (p, got)
        for g, w in zip(got, want):
            assert np.array_equal(integers(g), w), (p, g, w)
    assert s.post("/embed_all", {"inputs": TEXTS, "precision": "float32"}) == (200, floats)
    names = '"float32", "int8", "uint8", "binary" or "ubinary"'
    check_error(s.post("/embed_all", {"inputs": TEXTS, "precision": "int4"}), 422,
                f'precision: expected {names}, got "int4"')
    check_error(s.post("/embed_all", {"inputs": TEXTS, "precision": [1]}), 422,
                "precision: expected a string, got an array")


def save_calibration(s, path, route):
    """The server's float32 vectors of CALIBRATION_TEXTS (/embed: one a text,
    /embed_all: every token's) as a [rows, D] .npy; returns them."""
    status, out = s.post(route, {"inputs": CALIBRATION_TEXTS})
    assert status == 200, out
    rows = np.array(out if route == "/embed" else [r for m in out for r in m], np.float32)
    np.save(path, rows)
    return rows


def test_calibrated(plain, path):
    """tfenc serve --calibration: int8 / uint8 ranges from the file's rows."""
    cal = save_calibration(plain, path, "/embed")
    status, floats = plain.post("/embed", {"inputs": TEXTS})
    plain.stop()
    s = Server(ST, "--calibration", path)
    try:
        for p in ("int8", "uint8"):
            want = quantize_reference(np.array(floats, np.float32), p, ranges_of(cal))
            status, got = s.post("/embed", {"inputs": TEXTS, "precision": p})
            assert status == 200 and np.array_equal(integers(got), want), (p, got, want)
            status, one = s.post("/embed", {"inputs": TEXTS[0], "precision": p})
            assert status == 200 and np.array_equal(integers(one), want[:1]), (p, one, want)
            status, out = s.post("/v1/embeddings", {"input": TEXTS[:1], "precision": p})
            got = integers([d["embedding"] for d in out["data"]])
            assert status == 200 and np.array_equal(got, want[:1]), (p, out)
        assert (want == 255).any() or (want == 0).any()  # uint8 reaches an end bucket
        # the bits need no range: the same as without the file
        status, got = s.post("/embed", {"inputs": TEXTS, "precision": "binary"})
        assert np.array_equal(integers(got), reference(floats, "binary")), got
        check_error(s.post("/embed", {"inputs": TEXTS, "dimensions": 8, "precision": "int8"}),
                    422, 'precision "int8": the vectors have 8 values, the server\'s '
                    "--calibration embeddings 16; ask for all the model's dimensions")
        check_error(s.post("/v1/embeddings", {"input": TEXTS, "dimensions": 4,
                                              "precision": "uint8"}), 400,
                    'precision "uint8": the vectors have 4 values', openai=True)
    finally:
        s.stop()


def test_calibrated_embed_all(path):
    """/embed_all with --calibration: token rows' ranges from the file's rows."""
    s = Server(COLBERT)
    try:
        cal = save_calibration(s, path, "/embed_all")
        status, floats = s.post("/embed_all", {"inputs": TEXTS[0]})
    finally:
        s.stop()
    s = Server(COLBERT, "--calibration", path)
    try:
        for p in ("int8", "uint8"):
            want = multi_vector_reference([np.array(floats[0], np.float32)], p, cal)
            status, got = s.post("/embed_all", {"inputs": TEXTS[0], "precision": p})
            assert status == 200 and np.array_equal(integers(got[0]), want[0]), (p, got, want)
    finally:
        s.stop()


def start_refused(model, calibration, message):
    """tfenc serve --calibration refused at start: exit 1, the one line."""
    run = subprocess.run([TFENC, "serve", "--model", model, "--port", "0",
                          "--calibration", calibration], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and run.stderr == message + "\n", (run.returncode, run.stderr)


def test_calibration_refused():
    wide = os.path.join(TMP, "wide.npy")
    np.save(wide, np.zeros((2, 7), np.float32))
    start_refused(ST, wide, f"tfenc serve: --calibration {wide}: expected float32 embeddings "
                  "[rows, 16] (rows >= 1), got float32 [2, 7]")
    missing = os.path.join(TMP, "none.npy")
    start_refused(ST, missing, f"tfenc serve: --calibration {missing}: {missing}: cannot open: "
                  "No such file or directory")
    ce = os.path.join(DATA, "cross_encoder")
    start_refused(ce, wide, f"tfenc serve: --calibration: {ce} is a cross-encoder folder; only "
                  "an embedding or multi-vector model's vectors are quantized (\"precision\")")


def test_openapi(s):
    status, doc = s.request("GET", "/api-doc/openapi.json")
    assert status == 200
    schemas = doc["components"]["schemas"]
    assert schemas["Precision"] == {"enum": list(PRECISIONS), "type": "string"}, schemas["Precision"]
    for name in ("EmbedRequest", "OpenAICompatRequest", "EmbedAllRequest"):
        field = schemas[name]["properties"]["precision"]
        assert field["allOf"] == [{"$ref": "#/components/schemas/Precision"}], field
        assert field["default"] == "float32", field


def main():
    s = Server(ST)
    try:
        test_tei(s)
        test_openai(s)
        test_refused(s)
        test_embed_all(s)
        test_openapi(s)
        test_calibrated(s, os.path.join(TMP, "calibration.npy"))
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
    test_calibrated_embed_all(os.path.join(TMP, "tokens.npy"))
    test_calibration_refused()
    print("serve precision: /embed, /v1/embeddings (integers, base64), /embed_all, "
          "--calibration, refusals, OpenAPI: ok")


main()
