"""The Tokenizer through Python against Hugging Face's cases."""
import json
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

CASES = json.load(open(os.path.join(DATA, "wordpiece", "cases.json"), encoding="utf-8"))


@pytest.mark.parametrize("mode", ["uncased", "cased"])
def test_every_case_matches_hugging_face(vocab_path, mode):
    tok = tfenc.Tokenizer(vocab_path, lowercase=mode == "uncased")
    for case in CASES[mode]:
        assert tok.encode(case["text"]) == case["ids"], case["text"]
        assert tok.tokenize(case["text"]) == case["tokens"][1:-1], case["text"]


def test_batch_pairs_offsets(vocab_path):
    tok = tfenc.Tokenizer(vocab_path)
    batch = tok(["hello world", "a"], pairs=["yes", "no no"])
    ids, mask, types = batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]
    assert ids.dtype == np.int32 and ids.shape == mask.shape == types.shape
    assert mask[1].sum() < mask[0].sum() or mask[1].sum() == ids.shape[1]
    assert ids[0, 0] == tok.token_to_id("[CLS]")
    assert types[0, -1] == 1 or mask[0, -1] == 0
    ids, offsets = tok.encode("Hello world", return_offsets=True)
    assert offsets[0] == (0, 0) and offsets[-1] == (0, 0)
    assert ["Hello world"[b:e] for b, e in offsets[1:-1]] == ["Hello", "world"]
    assert tok.vocab_size == 6841 and tok.token_to_id("no such token") is None
