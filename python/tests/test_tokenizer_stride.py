"""Stride and overflowing windows through Python, called as transformers'
fast tokenizers are (truncation=, max_length=, stride=,
return_overflowing_tokens=True → overflow_to_sample_mapping), against
Hugging Face's tokenizers (tests/data/tokenizer_json/*/stride.json, written
by tests/tokenizer_json/gen_stride.js): the cases with direction Right, as
the files (which have no truncation of their own) cut."""
import json
import os

import pytest

import tfenc
from conftest import DATA

FILES = os.path.join(DATA, "tokenizer_json")
STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first",
              "OnlySecond": "only_second"}


def right_cases(name):
    with open(os.path.join(FILES, name, "stride.json"), encoding="utf-8") as f:
        return [c for c in json.load(f)["cases"] if c["direction"] == "Right"]


def call(tok, texts, pairs, case):
    return tok(texts, text_pair=pairs, truncation=STRATEGIES[case["strategy"]],
               max_length=case["max_length"], stride=case["stride"],
               return_overflowing_tokens=True, return_offsets_mapping=True)


def assert_rows(out, first, rows, sample, what):
    for k, row in enumerate(rows):
        r, n = first + k, len(row["ids"])
        assert int(out["attention_mask"][r].sum()) == n, what
        assert out["input_ids"][r, :n].tolist() == row["ids"], what
        assert out["token_type_ids"][r, :n].tolist() == row["type_ids"], what
        assert out["offset_mapping"][r, :n].tolist() == row["offsets"], what
        assert out["overflow_to_sample_mapping"][r] == sample, what


@pytest.mark.parametrize("name", ["bert_cased", "roberta", "unigram"])
def test_windows_match_hugging_face(name):
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, name, "tokenizer.json"))
    done = refused = 0
    for case in right_cases(name):
        pair = case.get("pair")
        if "error" in case:
            with pytest.raises(tfenc.InvalidArgumentError):
                call(tok, case["text"], pair, case)
            refused += 1
            continue
        out = call(tok, case["text"], pair, case)
        assert out["input_ids"].shape[0] == len(case["rows"])
        assert out["overflow_to_sample_mapping"].dtype.name == "int32"
        assert_rows(out, 0, case["rows"], 0, case["text"])
        done += 1
    assert done >= 40 and refused >= 10


def test_a_batch_maps_each_row_to_its_text():
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, "roberta", "tokenizer.json"))
    cases = [c for c in right_cases("roberta") if "pair" not in c and "error" not in c
             and c["strategy"] == "LongestFirst" and c["max_length"] == 14]
    assert len(cases) >= 3
    out = call(tok, [c["text"] for c in cases], None, cases[0])
    first = 0
    for i, c in enumerate(cases):
        assert_rows(out, first, c["rows"], i, c["text"])
        first += len(c["rows"])
    assert out["input_ids"].shape[0] == first
    plain = tok([c["text"] for c in cases], truncation=True, max_length=14, stride=5)
    assert "overflow_to_sample_mapping" not in plain and plain["input_ids"].shape[0] == len(cases)


def test_bad_stride_is_refused_by_name():
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, "roberta", "tokenizer.json"))
    with pytest.raises(tfenc.InvalidArgumentError, match="options.stride: expected >= 0, got -1"):
        tok("some text", truncation=True, max_length=8, stride=-1)
    with pytest.raises(tfenc.InvalidArgumentError, match="expected below 6 .* got 6"):
        tok("some text", truncation=True, max_length=8, stride=6, return_overflowing_tokens=True)
    with pytest.raises(TypeError, match="return_overflowing_tokens"):
        tok("some text", return_overflowing_tokens="yes")


def test_lists_keep_every_row_of_a_single_text():
    tok = tfenc.Tokenizer.from_file(os.path.join(FILES, "roberta", "tokenizer.json"))
    case = next(c for c in right_cases("roberta") if "pair" not in c and "error" not in c
                and c["strategy"] == "LongestFirst" and len(c["rows"]) >= 3)
    out = tok(case["text"], truncation=True, max_length=case["max_length"], stride=case["stride"],
              return_overflowing_tokens=True, return_tensors=None, padding=False)
    assert out["input_ids"] == [r["ids"] for r in case["rows"]]
    assert out["overflow_to_sample_mapping"] == [0] * len(case["rows"])
