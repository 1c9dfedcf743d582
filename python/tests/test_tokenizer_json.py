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


SPM = ["unigram", "unigram_bytes", "spm_bpe"]


@pytest.mark.parametrize("name", SPM + ["bert_uncased", "qwen3"])
def test_called_as_hugging_face_with_offsets_and_decode(name):
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, name, "tokenizer.json"))
    for case in cases(name, 40):
        pair = case.get("pair")
        out = tok(case["text"], text_pair=pair, return_offsets_mapping=True)
        n = int(out["attention_mask"][0].sum())
        assert out["input_ids"].dtype.name == "int32" and out["offset_mapping"].shape[-1] == 2
        assert out["input_ids"][0, :n].tolist() == case["ids"], case["text"]
        assert out["token_type_ids"][0, :n].tolist() == case["type_ids"], case["text"]
        if pair is None and name.startswith("bert"):  # tokenizers' own offsets
            assert out["offset_mapping"][0, :n].tolist() == case["offsets"], case["text"]
        if pair is None:  # the C library's byte offsets, counted in code points
            data = case["text"].encode()
            _, spans = tok.encode(case["text"], return_offsets=True)
            chars = [[len(data[:b].decode()), len(data[:e].decode())] for b, e in spans]
            assert out["offset_mapping"][0, :n].tolist() == chars, case["text"]
        if "decoded" in case:
            assert tok.decode(case["ids"]) == case["decoded"]
            assert tok.decode(case["ids"], skip_special_tokens=True) == \
                case["decoded_skipping_specials"]


def test_truncation_and_padding_as_called():
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, "bert_uncased", "tokenizer.json"))
    every = json.load(open(os.path.join(FILES, "bert_uncased", "cases.json"),
                           encoding="utf-8"))["truncated"]
    for c in every:
        out = tok([c["text"]], text_pair=[c["pair"]], truncation=c["strategy"],
                  max_length=c["max_length"])
        n = int(out["attention_mask"][0].sum())
        assert out["input_ids"][0, :n].tolist() == c["ids"], c
    out = tok(["a b c d e f g", "a"], padding="max_length", max_length=10, padding_side="left")
    assert out["input_ids"].shape == (2, 10)
    assert out["attention_mask"][1].tolist() == [0] * 7 + [1] * 3
    out = tok(["a", "a b"], pad_to_multiple_of=8)
    assert out["input_ids"].shape == (2, 8)
    with pytest.raises(ValueError, match="truncation: expected"):
        tok("a", truncation="sometimes")
    with pytest.raises(ValueError, match="padding_side"):
        tok("a", padding_side="up")
    with pytest.raises(tfenc.TfencError, match="options.max_length: 0"):
        tok("a", truncation=True)
    with pytest.raises(tfenc.TfencError, match="ids\\[1\\]: 99999 is not a token"):
        tok.decode([5, 99999])


def test_padding_false_and_return_tensors_as_transformers():
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, "bert_uncased", "tokenizer.json"))
    texts = ["hello world", "a", "hello world hello"]
    want = [tok.encode(t) for t in texts]  # the rows unpadded: [CLS] ... [SEP]
    assert len({len(w) for w in want}) == 3
    # return_tensors=None: lists, each row its own length (transformers' BatchEncoding)
    out = tok(texts, padding=False, return_tensors=None, return_offsets_mapping=True)
    assert out["input_ids"] == want
    assert out["attention_mask"] == [[1] * len(w) for w in want]
    assert out["token_type_ids"] == [[0] * len(w) for w in want]
    assert out["offset_mapping"][0] == [(0, 0), (0, 5), (6, 11), (0, 0)]
    assert tok(texts, padding="do_not_pad", return_tensors=None)["input_ids"] == want
    # padded lists: the longest row's length, pad id 0 after the real ids
    out = tok(texts, padding=True, return_tensors=None)
    assert out["input_ids"][1] == want[1] + [tok.token_to_id("[PAD]")] * 2
    assert out["attention_mask"][1] == [1, 1, 1, 0, 0]
    assert len(out["input_ids"][0]) == 5
    # a single text: the row itself, not a batch of one
    assert tok("hello world", padding=False, return_tensors=None)["input_ids"] == want[0]
    # "np": rows of different lengths are a [B] object array of each row's ids
    out = tok(texts, padding=False, return_tensors="np")
    assert out["input_ids"].dtype == object and out["input_ids"].shape == (3,)
    assert [row.tolist() for row in out["input_ids"]] == want
    assert out["input_ids"][1].dtype.name == "int32"
    # "np" with rows of one length, or a single text: [B, T]
    out = tok(["hello", "world"], padding=False, return_tensors="np")
    assert out["input_ids"].shape == (2, 3) and out["input_ids"].dtype.name == "int32"
    assert tok("a", padding=False)["input_ids"].tolist() == [want[1]]
    # unpadded even where left padding or a multiple is asked
    out = tok(texts, padding=False, padding_side="left", pad_to_multiple_of=8,
              return_tensors=None)
    assert out["input_ids"] == want
    with pytest.raises(ValueError, match="return_tensors: expected None or 'np', got 'pt'"):
        tok("a", return_tensors="pt")
