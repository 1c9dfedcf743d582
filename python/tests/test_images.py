"""Images through the Python binding: SentenceTransformer.encode of the vision
folders tests/data/gen_image_pipeline.py lays out (sentence-transformers'
CLIP, CLIP, SigLIP, ViTModel) and tfenc.ImageClassifier (ViTForImageClassification)
against its float64 references of upstream's code, within 1e-5, from PIL
images, uint8 arrays, paths and bytes; and the refusals."""
import json
import os
import pathlib

import numpy as np
import pytest
from PIL import Image

import tfenc
from conftest import DATA

FOLDERS = os.path.join(DATA, "image_pipeline")
FILES = os.path.join(DATA, "images", "files")
EMBEDDERS = ["clip", "st_clip", "siglip", "vit_model"]


def expected(name):
    with open(os.path.join(FOLDERS, name, "expected.json")) as f:
        exp = json.load(f)
    return exp["files"], np.array(exp["values"]).reshape(exp["shape"])


def forms(files):
    """The two files as each form an image takes."""
    paths = [pathlib.Path(FILES, f) for f in files]
    pil = [Image.open(p) for p in paths]
    return {
        "path": paths,
        "bytes": [p.read_bytes() for p in paths],
        "pil": pil,
        # decoded by PIL: the photographs have no EXIF orientation
        "array": [np.asarray(im.convert("RGB")) for im in pil],
    }


@pytest.mark.parametrize("name", EMBEDDERS)
def test_encode_every_form(name):
    files, want = expected(name)
    with tfenc.SentenceTransformer.from_dir(os.path.join(FOLDERS, name)) as model:
        assert model.get_sentence_embedding_dimension() == want.shape[1]
        for form, images in forms(files).items():
            got = model.encode(images)
            assert got.shape == want.shape and got.dtype == np.float32, form
            assert np.abs(got - want).max() <= 1e-5, (name, form)
            one = model.encode(images[1])
            assert one.shape == (want.shape[1],) and np.abs(one - want[1]).max() <= 1e-5, form
        unit = model.encode(forms(files)["path"], normalize_embeddings=True, batch_size=1)
        ref = want / np.linalg.norm(want, axis=1, keepdims=True)
        assert np.abs(unit - ref).max() <= 1e-5


def test_classifier():
    files, want = expected("vit_classifier")
    with tfenc.ImageClassifier.from_dir(os.path.join(FOLDERS, "vit_classifier")) as clf:
        assert clf.labels == ["tabby cat", "golden retriever", "teapot"]
        images = forms(files)["pil"]
        out = clf(images)
        for row, probs in zip(out, want):
            order = np.argsort(-probs, kind="stable")
            assert [r["label"] for r in row] == [clf.labels[i] for i in order]
            assert all(abs(r["score"] - probs[i]) <= 1e-5 for r, i in zip(row, order))
        top = clf(images[0], top_k=1)
        assert len(top) == 1 and top[0]["label"] == clf.labels[int(np.argmax(want[0]))]
        assert np.abs(clf.predict_proba(images) - want).max() <= 1e-5


def test_refusals():
    with tfenc.SentenceTransformer.from_dir(os.path.join(FOLDERS, "clip")) as model:
        with pytest.raises(TypeError, match="a str is a text"):
            model.encode("a photo of a cat")
        with pytest.raises(ValueError, match=r"sentences\[1\]: expected a uint8 array"):
            model.encode([np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4), np.uint8)])
        with pytest.raises(tfenc.FormatError,
                           match=r"^sentences\[1\]: not a JPEG, PNG or WebP image: it starts "
                                 r"with 6e 6f 74 20 61 6e 20 69$"):
            model.encode([pathlib.Path(FILES, "rgb_17x11.png"), b"not an image"])
        with pytest.raises(tfenc.UnsupportedError, match="^sentences: a GIF image"):
            model.encode(pathlib.Path(DATA, "images", "hostile", "image.gif"))
    with pytest.raises(ValueError, match="the folder's kind is image-embedding"):
        tfenc.ImageClassifier.from_dir(os.path.join(FOLDERS, "clip"))
    with pytest.raises(ValueError, match="the folder's kind is image-classifier"):
        tfenc.SentenceTransformer.from_dir(os.path.join(FOLDERS, "vit_classifier"))
