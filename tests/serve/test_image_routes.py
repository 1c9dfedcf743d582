"""test_image_routes.py TFENC DATA_DIR — images over HTTP: tfenc serve on the
image folders of tests/data/image_pipeline (CLIP, sentence-transformers' CLIP,
SigLIP, ViT; gen_image_pipeline.py) takes each input as a data URI
(data:image/png;base64,..., image/jpeg, image/webp) on POST /v1/embeddings
(infinity's "modality": "image", or the model's default), /embed and /, and
answers the vectors of `tfenc embed --image` on the same files, float32 for
float32 (OpenAI's base64 too), unit rows with "normalize" (/embed's default,
TEI's) as `--normalize` gives them, within 1e-5 of the folders' float64
references; a ViTForImageClassification folder on /predict (and /) answers
TEI's [{score, label}] best first, the probabilities of `tfenc classify
--image`; a whole CLIPModel folder (tests/data/clip_text: both towers) takes
texts and images, as `tfenc embed` and `tfenc embed --image` give them.
Concurrent image requests each get their own vectors, and those with an image
the library refuses among them only are refused. Refused, with TEI's or
OpenAI's error shape, status and exact message: an image to a text model (a
data URI without "modality": "text", or "modality": "image"), a text or token
ids to an image model, images and texts mixed in a request (or in /similarity's
sentences) without "modality", a data URI that is malformed (no ',', no ";base64", a type other
than PNG, JPEG or WebP, a base64 byte or length that is not base64's, bytes of
another type than it says, nothing), bytes the library refuses (not an image,
cut short: its message, naming the image's index), more pixels than
--max-image-pixels, a body over --payload-limit, "dimensions" and
"prompt_name" on images, raw_scores and pairs on an image classifier, the text
routes (/rerank, /embed_all, /embed_sparse, /tokenize, /decode) on an image
model (424). /similarity takes images on an image model, and on a whole CLIP
folder a text or an image as the source and texts or images as the
sentences: the cosines of the CLI's vectors."""
import base64
import json
import os
import subprocess
import sys
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_serve import Server, check_error, validate  # noqa: E402

TFENC, DATA = sys.argv[1], sys.argv[2]
FOLDERS = os.path.join(DATA, "image_pipeline")
FILES = os.path.join(DATA, "images", "files")
ASTRONAUT = os.path.join(FILES, "photo_astronaut_200x160.jpg")  # 200 x 160 (w x h)
COFFEE = os.path.join(FILES, "photo_coffee_150x100.webp")
CHELSEA = os.path.join(FILES, "photo_chelsea_90x60.png")
ST = os.path.join(DATA, "pipelines", "st_mean_norm")
TYPES = {".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}


def uri(path, mime=None):
    data = open(path, "rb").read()
    return f"data:{mime or TYPES[os.path.splitext(path)[1]]};base64," + \
        base64.b64encode(data).decode()


def cli_vectors(folder, files, *flags):
    out = subprocess.run([TFENC, "embed", "--model", folder, "--image", *files, "--json", *flags],
                         check=True, capture_output=True, text=True).stdout
    return np.array(json.loads(out)["embeddings"], dtype=np.float32)


def cosine64(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(a @ b / np.sqrt((a @ a) * (b @ b)))


def same(got, want, what):
    """float32 for float32: the server's and the CLI's vectors bit for bit."""
    got = np.array(got, dtype=np.float32)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert np.array_equal(got, want), (what, np.abs(got - want).max())


def check_embedding_folder(name):
    """Every route that embeds images against the CLI on the same files."""
    folder = os.path.join(FOLDERS, name)
    files = [ASTRONAUT, COFFEE]
    raw, unit = cli_vectors(folder, files), cli_vectors(folder, files, "--normalize")
    exp = json.load(open(os.path.join(folder, "expected.json")))
    want64 = np.array(exp["values"]).reshape(exp["shape"])
    assert [os.path.basename(f) for f in exp["files"]] == [os.path.basename(f) for f in files]
    assert np.abs(raw - want64).max() <= 1e-5, (name, np.abs(raw - want64).max())
    s = Server(folder)
    uris = [uri(f) for f in files]
    status, out = s.post("/v1/embeddings", {"input": uris, "model": "m", "modality": "image"})
    assert status == 200 and out["model"] == "m" and out["usage"]["prompt_tokens"] == 0, out
    assert [d["index"] for d in out["data"]] == [0, 1], out
    same([d["embedding"] for d in out["data"]], raw, f"{name} /v1/embeddings")
    status, b64 = s.post("/v1/embeddings", {"input": uris, "encoding_format": "base64"})
    assert status == 200, b64
    same([np.frombuffer(base64.b64decode(d["embedding"]), "<f4") for d in b64["data"]], raw,
         f"{name} /v1/embeddings base64 (the model's modality)")
    status, out = s.post("/embed", {"inputs": uris})  # TEI's default: normalize
    assert status == 200 and validate(out, "EmbedResponse"), out
    same(out, unit, f"{name} /embed")
    status, root = s.post("/", {"inputs": uris[1]})  # POST / is /embed; one image a call
    assert status == 200 and np.abs(np.array(root, np.float32) - unit[1:]).max() <= 1e-6, root
    status, out = s.post("/embed", {"inputs": uris, "normalize": False, "modality": "image"})
    same(out, raw, f"{name} /embed normalize false")
    status, sims = s.post("/similarity", {"inputs": {"source_sentence": uris[0],
                                                     "sentences": uris}})
    assert status == 200 and validate(sims, "SimilarityResponse"), sims
    assert np.abs(np.array(sims) - [cosine64(raw[0], v) for v in raw]).max() <= 1e-6, sims
    # one request a thread at once: each answer is its own image's vector
    results = {}

    def post(k):
        results[k] = s.post("/embed", {"inputs": uris[k % 2], "normalize": False})

    threads = [threading.Thread(target=post, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, (status, got) in results.items():
        assert status == 200, got
        assert np.abs(np.array(got[0], np.float32) - raw[k % 2]).max() <= 1e-6, (name, k)
    return s


def check_refused_among_others(s, raw):
    """Requests at once, every third with an image the library refuses: the batcher's call
    of several requests' images fails, is run again an image at a time, and only those
    requests are refused, naming their image's index; the others get their vectors."""
    good = [uri(ASTRONAUT), uri(COFFEE)]
    bad = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n cut").decode()
    results = {}

    def post(k):
        inputs = [good[k % 2], bad] if k % 3 == 0 else [good[k % 2]]
        results[k] = s.post("/embed", {"inputs": inputs, "normalize": False})

    threads = [threading.Thread(target=post, args=(k,)) for k in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, (status, got) in sorted(results.items()):
        if k % 3 == 0:
            check_error((status, got), 422, "inputs: image 1: ")
        else:
            assert status == 200, (k, got)
            assert np.abs(np.array(got[0], np.float32) - raw[k % 2]).max() <= 1e-6, k


def check_refusals(s):
    """An image-embedding server's refusals: status, shape and message."""
    png = uri(CHELSEA)
    payload = png.split(",", 1)[1]
    kind = "image-embedding"
    check_error(s.post("/embed", {"inputs": [png, "hello"]}), 422,
                'inputs[1]: expected an image as a data URI (data:image/png;base64,..., '
                f'image/jpeg or image/webp: this server\'s model is {kind}), got "hello"')
    check_error(s.post("/v1/embeddings", {"input": "hello"}), 400,
                "input[0]: expected an image as a data URI", openai=True)
    check_error(s.post("/v1/embeddings", {"input": [png], "modality": "text"}), 400,
                f'modality "text": this server\'s model is {kind}, which takes images; send each '
                'of input as a data URI (data:image/png;base64,..., image/jpeg or image/webp) '
                'with "modality": "image"', openai=True)
    check_error(s.post("/embed", {"inputs": [png], "modality": "video"}), 422,
                'modality: expected "text" or "image", got "video"')
    check_error(s.post("/embed", {"inputs": [[101, 102]]}), 422,
                f"inputs: token ids, but this server's model is {kind}, which takes images as "
                "data URIs")
    malformed = [
        ("data:image/png;base64" + payload, 'inputs[0]: a data URI without the \',\' before its '
         'data: "data:image/png;base64iVBOR'),
        ("data:image/gif;base64," + payload, 'inputs[0]: a data URI of type "image/gif"; '
         "expected image/png, image/jpeg or image/webp"),
        ("data:image/png," + payload, "inputs[0]: a data URI without \";base64\" before its ',': "
         "expected the image's bytes in base64"),
        ("data:image/png;base64," + payload[:8] + "-" + payload[9:],
         "inputs[0]: the data URI's base64 has byte 0x2d at 8, which is not base64"),
        ("data:image/png;base64," + payload + "A", "inputs[0]: the data URI's base64 is "
         f"{len(payload) + 1} characters long, which no bytes encode"),
        (uri(ASTRONAUT, "image/png"), "inputs[0]: the data URI says image/png, but its bytes "
         "are a JPEG file"),
        ("https://example.com/cat.png", "inputs[0]: expected an image as a data URI"),
    ]
    for bad, message in malformed:
        check_error(s.post("/embed", {"inputs": [bad]}), 422, message)
    check_error(s.post("/embed", {"inputs": ["data:image/png;base64,"]}), 400,
                "inputs[0]: an empty image (nothing after the data URI's ',')",
                error_type="Empty")
    not_image = "data:image/png;base64," + base64.b64encode(b"not an image at all").decode()
    status, body = s.post("/embed", {"inputs": [png, not_image]})
    check_error((status, body), 422, "inputs: image 1: ")
    cut = "data:image/png;base64," + base64.b64encode(open(CHELSEA, "rb").read()[:200]).decode()
    check_error(s.post("/v1/embeddings", {"input": [cut]}), 400, "input: image 0: ", openai=True)
    check_error(s.post("/embed", {"inputs": [png], "dimensions": 4}), 422,
                "dimensions: 4, but an image's vector is whole")
    check_error(s.post("/embed", {"inputs": [png], "prompt_name": "query"}), 422,
                "prompt_name: images have no prompt; leave it out")
    check_error(s.post("/similarity", {"inputs": {"source_sentence": "a", "sentences": [png]}}),
                422, "inputs.source_sentence[0]: expected an image as a data URI")
    for path, body in (("/rerank", {"query": "a", "texts": ["b"]}),
                       ("/embed_sparse", {"inputs": "a"}), ("/embed_all", {"inputs": "a"})):
        status, err = s.post(path, body)
        assert status == 424 and err["error_type"] == "Backend", (path, err)
        assert "image-embedding" in err["error"], (path, err)
    for path, body in (("/tokenize", {"inputs": "a"}), ("/decode", {"ids": [1]})):
        check_error(s.post(path, body), 424,
                    f"{path} needs a model with a tokenizer; this server's model is {kind}, "
                    "which has none (use /v1/embeddings or /embed or /similarity)",
                    error_type="Backend")
    info = s.request("GET", "/info")[1]
    assert validate(info, "Info") and info["model_type"] == {"embedding": {"pooling": "image"}}
    doc = s.request("GET", "/api-doc/openapi.json")[1]["components"]["schemas"]
    for name in ("EmbedRequest", "OpenAICompatRequest"):
        assert doc[name]["properties"]["modality"] == {
            "allOf": [{"$ref": "#/components/schemas/Modality"}], "nullable": True}, doc[name]
    assert doc["Modality"] == {"enum": ["text", "image"], "type": "string"}, doc["Modality"]


def check_limits():
    """--max-image-pixels refuses a larger image from its header; --payload-limit bounds
    a body of data URIs as any other."""
    s = Server(os.path.join(FOLDERS, "clip"), "--max-image-pixels", "10000", "--payload-limit",
               "20000")
    check_error(s.post("/embed", {"inputs": [uri(CHELSEA), uri(ASTRONAUT)]}), 413, "")
    status, out = s.post("/embed", {"inputs": [uri(CHELSEA)]})  # 90 x 60: 5400 pixels
    assert status == 200, out
    status, body = s.post("/embed", {"inputs": [uri(CHELSEA), uri(COFFEE)]})  # 150 x 100
    check_error((status, body), 422, "inputs: image 1: ")
    assert "10000" in body["error"] and "15000" in body["error"], body
    run = subprocess.run([TFENC, "serve", "--model", os.path.join(FOLDERS, "clip"),
                          "--max-image-pixels", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr == (
        "tfenc serve: --max-image-pixels: expected an integer 1..1073741824, got '0'\n"), run
    return s


def check_text_model():
    """A text model refuses images, unless "modality": "text" asks for the URI's text."""
    s = Server(ST)
    png = uri(CHELSEA)
    check_error(s.post("/embed", {"inputs": ["a cat", png]}), 422,
                "inputs[1]: a data URI of an image, but this server's model is embedding, "
                'which takes texts; send "modality": "text" to embed it as text')
    check_error(s.post("/v1/embeddings", {"input": ["a cat"], "modality": "image"}), 400,
                'modality "image": this server\'s model is embedding, which takes texts; send '
                "texts, or serve an image model", openai=True)
    status, out = s.post("/embed", {"inputs": ["data:image/png;base64,AAAA"], "modality": "text"})
    assert status == 200 and len(out) == 1, out
    status, out = s.post("/v1/embeddings", {"input": ["a cat"], "modality": "text"})
    assert status == 200 and len(out["data"]) == 1, out
    classifier = Server(os.path.join(DATA, "pipelines", "classifier"))
    check_error(classifier.post("/predict", {"inputs": png}), 422,
                "inputs[0]: a data URI of an image, but this server's model is classifier, which "
                'takes texts; send "modality": "text" to embed it as text')
    status, out = classifier.post("/predict", {"inputs": png, "modality": "text", "truncate": True})
    assert status == 200 and validate(out, "PredictResponse"), out
    classifier.stop()
    return s


def check_both():
    """A whole CLIPModel folder (both towers: tests/data/clip_text) takes texts and images:
    "modality" says which, else every input a data URI is images and none texts; a mix
    without "modality" is refused."""
    folder = os.path.join(DATA, "clip_text", "clip")
    texts = ["a photo of a cat", "a teapot"]
    want_texts = np.array(json.loads(subprocess.run(
        [TFENC, "embed", "--model", folder, "--json", *texts], check=True, capture_output=True,
        text=True).stdout)["embeddings"], dtype=np.float32)
    want_images = cli_vectors(folder, [ASTRONAUT, COFFEE])
    s = Server(folder)
    uris = [uri(ASTRONAUT), uri(COFFEE)]
    for body in ({"input": texts, "modality": "text"}, {"input": texts}):
        status, out = s.post("/v1/embeddings", body)
        assert status == 200 and out["usage"]["prompt_tokens"] > 0, out
        same([d["embedding"] for d in out["data"]], want_texts, f"clip texts {body}")
    for body in ({"input": uris, "modality": "image"}, {"input": uris}):
        status, out = s.post("/v1/embeddings", body)
        assert status == 200 and out["usage"]["prompt_tokens"] == 0, out
        same([d["embedding"] for d in out["data"]], want_images, f"clip images {body}")
    check_error(s.post("/embed", {"inputs": [uris[0], texts[0]]}), 422,
                "inputs[1] is a text, but inputs[0] is an image: this server's model "
                "(image-embedding) takes both, one kind a request; send them as two requests, "
                'or say which with "modality"')
    check_error(s.post("/embed", {"inputs": [texts[0]], "modality": "image"}), 422,
                "inputs[0]: expected an image as a data URI")
    status, tokens = s.post("/tokenize", {"inputs": texts[0]})
    assert status == 200 and validate(tokens, "TokenizeResponse"), tokens
    # /similarity: texts with texts, images with images, and an image against captions
    # (CLIP's image-text cosine), each the cosine of the CLI's vectors
    for source, sentences, want_source, want in (
            (texts[0], texts, want_texts[0], want_texts),
            (uris[1], uris, want_images[1], want_images),
            (uris[0], texts, want_images[0], want_texts),
            (texts[1], uris, want_texts[1], want_images)):
        status, sims = s.post("/similarity", {"inputs": {"source_sentence": source,
                                                         "sentences": sentences}})
        assert status == 200, sims
        assert np.abs(np.array(sims) - [cosine64(want_source, v) for v in want]).max() <= 1e-6, (
            source[:30], sims)
    check_error(s.post("/similarity", {"inputs": {"source_sentence": texts[0],
                                                  "sentences": [texts[1], uris[0]]}}), 422,
                "inputs.sentences[1] is an image, but inputs.sentences[0] is a text: this "
                "server's model (image-embedding) takes both, one kind a request; send them as "
                'two requests, or say which with "modality"')
    status, sims = s.post("/similarity", {"inputs": {"source_sentence": uris[0],
                                                     "sentences": [uris[0]]},
                                          "parameters": {"truncate": True}, "modality": "text"})
    assert status == 200 and abs(sims[0] - 1) <= 1e-6, sims  # data URIs embedded as texts
    return s


def check_classifier():
    """ViTForImageClassification on /predict: TEI's predictions, `tfenc classify`'s."""
    folder = os.path.join(FOLDERS, "vit_classifier")
    cli = json.loads(subprocess.run([TFENC, "classify", "--model", folder, "--image", ASTRONAUT,
                                     COFFEE, "--json"], check=True, capture_output=True,
                                    text=True).stdout)
    want = [[(p["label"], np.float32(p["score"])) for p in c["labels"]] for c in cli]
    s = Server(folder)
    a, b = uri(ASTRONAUT), uri(COFFEE)

    def pairs(prediction):
        return [(p["label"], np.float32(p["score"])) for p in prediction]

    status, one = s.post("/predict", {"inputs": a})
    assert status == 200 and validate(one, "PredictResponse") and pairs(one) == want[0], one
    for inputs in ([a, b], [[a], [b]], [a, b, a]):
        status, many = s.post("/predict", {"inputs": inputs})
        assert status == 200 and validate(many, "PredictResponse"), many
        assert [pairs(p) for p in many] == [want[k % 2] for k in range(len(inputs))], many
    assert s.post("/", {"inputs": a}) == (200, one), "POST / is /predict"
    info = s.request("GET", "/info")[1]
    assert validate(info, "Info") and set(info["model_type"]) == {"classifier"}, info
    check_error(s.post("/predict", {"inputs": a, "raw_scores": True}), 422,
                "raw_scores: an image classifier gives probabilities only; leave it out")
    check_error(s.post("/predict", {"inputs": [[a, b], [a, b]]}), 422,
                "inputs[0]: a pair, but an image classifier takes one image an input")
    check_error(s.post("/predict", {"inputs": "a cat"}), 422,
                "inputs[0]: expected an image as a data URI")
    check_error(s.post("/embed", {"inputs": a}), 424, "/embed needs an embedding model; this "
                "server's model is image-classifier (use /predict)", error_type="Backend")
    return s


def main():
    servers = [check_embedding_folder(name) for name in ("clip", "st_clip", "siglip", "vit_model")]
    check_refusals(servers[0])
    check_refused_among_others(servers[0], cli_vectors(os.path.join(FOLDERS, "clip"),
                                                       [ASTRONAUT, COFFEE]))
    servers += [check_limits(), check_text_model(), check_both(), check_classifier()]
    for s in servers:
        s.stop()
    print("serve images: /v1/embeddings, /embed, /predict against the CLI; refusals: ok")


if __name__ == "__main__":
    main()
