"""Tokenizers from tokenizer.json through Python against Hugging Face's
tokenizers (tests/data/tokenizer_json, written by
tests/tokenizer_json/gen_cases.js)."""
import json
import os

import pytest

import tfenc
from conftest import DATA

FILES = os.path.join(DATA, "tokenizer_json")


def cases(name, count):
    with open(os.path.join(FILES, name, "cases.json"), encoding="utf-8") as f:
        every = json.load(f)["cases"]
    return every[:count] + [c for c in every if "pair" in c][:5]


@pytest.mark.parametrize("name", ["bert_uncased", "qwen3", "roberta", "bpe_chars", "bpe_bytes"])
def test_cases_match_hugging_face(name):
    tok = tfenc.Tokenizer(os.path.join(FILES, name, "tokenizer.json"))
    for case in cases(name, 60):
        ids = tok.encode(case["text"], case.get("pair"))
        assert ids == case["ids"], case["text"]
        batch = tok([case["text"]], None if "pair" not in case else [case["pair"]])
        assert batch["token_type_ids"][0, :len(ids)].tolist() == case["type_ids"], case["text"]


def test_directory_tokens_and_offsets():
    tok = tfenc.Tokenizer(os.path.join(FILES, "qwen3"))  # the directory's tokenizer.json
    text = "Hello world, 你好"
    ids, offsets = tok.encode(text, return_offsets=True)
    # the vocabulary's strings (the reduced file has no "Ġä½łå¥½")
    assert tok.tokenize(text) == ["Hello", "Ġworld", ",", "Ġ", "ä½łå¥½"]
    data = text.encode()
    assert [data[b:e] for b, e in offsets] == [b"Hello", b" world", b",", b" ", "你好".encode()]
    assert tok.token_to_id("<|endoftext|>") == tok.vocab_size - 26


def test_special_tokens_of_the_template_are_not_tokens_of_the_text():
    tok = tfenc.Tokenizer(os.path.join(FILES, "roberta"))
    ids, offsets = tok.encode("before <mask> after", return_offsets=True)
    assert tok.id_to_token(ids[0]) == "<s>" and offsets[0] == (0, 0)
    assert tok.tokenize("before <mask> after") == ["Ġbefore", "<mask>", "Ġafter"]
