"""Whole CLIP and SigLIP folders through the Python binding (tests/data/gen_clip_text.py):
SentenceTransformer.encode of texts (the text tower) and of images (the vision tower),
mixed in one list as sentence-transformers' CLIPModel takes them, and
tfenc.ZeroShotImageClassifier, against the float64 references of upstream's code
within 1e-5."""
import json
import os
import pathlib

import numpy as np
import pytest

import tfenc
from conftest import DATA

FOLDERS = os.path.join(DATA, "clip_text")
NAMES = ["clip", "st_clip", "siglip"]


def expected(name):
    with open(os.path.join(FOLDERS, name, "expected.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", NAMES)
def test_encode_texts_gives_the_text_tower_vectors(name):
    exp = expected(name)
    with tfenc.SentenceTransformer(os.path.join(FOLDERS, name)) as model:
        got = model.encode(exp["texts"])
        one = model.encode(exp["texts"][1])
    want = np.array(exp["text_embeds"]).reshape(len(exp["texts"]), -1)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(one, want[1], atol=1e-5, rtol=0)


@pytest.mark.parametrize("name", NAMES)
def test_texts_and_images_mixed_keep_their_order(name):
    exp = expected(name)
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (40, 48, 3), dtype=np.uint8)
    with tfenc.SentenceTransformer(os.path.join(FOLDERS, name)) as model:
        alone = model.encode([image])
        mixed = model.encode([exp["texts"][0], image, exp["texts"][2]])
    want = np.array(exp["text_embeds"]).reshape(len(exp["texts"]), -1)
    np.testing.assert_allclose(mixed[[0, 2]], want[[0, 2]], atol=1e-5, rtol=0)
    np.testing.assert_array_equal(mixed[1], alone[0])


@pytest.mark.parametrize("name", NAMES)
def test_zero_shot_probabilities(name):
    exp = expected(name)
    paths = [pathlib.Path(DATA, "images", "files", f) for f in exp["files"]]
    want = np.array(exp["probs_files"]).reshape(len(paths), len(exp["labels"]))
    with tfenc.ZeroShotImageClassifier(os.path.join(FOLDERS, name)) as clf:
        probs = clf.predict_proba(paths, exp["labels"])
        one = clf.predict_proba(paths[1], exp["labels"])
        # the pipeline's call: the template around each candidate label, best first
        ranked = clf(paths[0], candidate_labels=[l[len("a "):] for l in exp["labels"]],
                     hypothesis_template="a {}")
    np.testing.assert_allclose(probs, want, atol=1e-5, rtol=0)
    np.testing.assert_allclose(one, want[1], atol=1e-5, rtol=0)
    order = np.argsort(-want[0], kind="stable")
    assert [r["label"] for r in ranked] == [exp["labels"][i][len("a "):] for i in order]
    np.testing.assert_allclose([r["score"] for r in ranked], want[0][order], atol=1e-5)


def test_zero_shot_needs_a_text_tower():
    with tfenc.ZeroShotImageClassifier(os.path.join(DATA, "image_pipeline", "clip")) as clf:
        with pytest.raises(tfenc.InvalidArgumentError, match="has no text tower"):
            clf.predict_proba(np.zeros((32, 32, 3), np.uint8), ["a cat"])
