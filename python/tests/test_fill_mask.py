"""tfenc.FillMask as transformers' FillMaskPipeline is called and what it
returns (pipelines/fill_mask.py: a list of {"score", "token", "token_str",
"sequence"} for a text with one mask, a list of such lists for several, a
list of those for a list of texts), against the float64 references of
tests/data/gen_mlm.py (expected.json) on every folder of tests/data/mlm;
and its refusals."""
import json
import os

import pytest

import tfenc
from conftest import DATA

MLM = os.path.join(DATA, "mlm")
FOLDERS = ["bert_base_uncased", "bert_untied", "distilbert_base_uncased", "electra_generator",
           "roberta_base", "roberta_untied", "xlm_roberta_base", "modernbert_base"]


def expected(name):
    with open(os.path.join(MLM, name, "expected.json")) as f:
        return json.load(f)


def assert_predictions(got, case):
    """One text's result against its reference: the pipeline's shape, the
    tokens, token_str and sequence equal, scores within 1e-5."""
    masks = case["predictions"]
    rows = got if len(masks) > 1 else [got]
    assert len(rows) == len(masks)
    for got_row, want_row in zip(rows, masks):
        assert [set(p) for p in got_row] == [{"score", "token", "token_str", "sequence"}] * \
            len(want_row)
        for g, w in zip(got_row, want_row):
            assert (g["token"], g["token_str"], g["sequence"]) == \
                (w["token"], w["token_str"], w["sequence"])
            assert abs(g["score"] - w["score"]) <= 1e-5


@pytest.mark.parametrize("name", FOLDERS)
def test_predictions_match_the_reference(name):
    exp = expected(name)
    with tfenc.FillMask.from_dir(os.path.join(MLM, name)) as fill:
        assert fill.kind == "fill-mask"
        texts = [c["text"] for c in exp["cases"]]
        for text, case in zip(texts, exp["cases"]):
            assert_predictions(fill(text, top_k=exp["top_k"]), case)
        for got, case in zip(fill(texts, top_k=exp["top_k"]), exp["cases"]):  # a list of texts
            assert_predictions(got, case)


def test_shapes_and_default_top_k():
    """top_k 5 by default; one mask: a list of dicts; two: a list of lists."""
    with tfenc.FillMask.from_dir(os.path.join(MLM, "bert_base_uncased")) as fill:
        one = fill("the cat sat on the [MASK].")
        assert isinstance(one, list) and len(one) == 5 and isinstance(one[0], dict)
        two = fill("the [MASK] sat on the [MASK].", top_k=2)
        assert len(two) == 2 and all(len(row) == 2 and isinstance(row[0], dict) for row in two)
        assert [p["score"] for p in one] == sorted((p["score"] for p in one), reverse=True)


def test_refusals():
    with tfenc.FillMask.from_dir(os.path.join(MLM, "bert_base_uncased")) as fill:
        with pytest.raises(tfenc.InvalidArgumentError,
                           match=r"text: no mask_token \(\[MASK\]\) found on the input"):
            fill("the cat sat")
        with pytest.raises(ValueError, match="top_k"):
            fill("the [MASK]", top_k=0)
        with pytest.raises(TypeError, match="top_k"):
            fill("the [MASK]", top_k=2.0)
    with pytest.raises(ValueError, match="the folder's kind is cross-encoder; FillMask reads "
                                         "fill-mask folders"):
        tfenc.FillMask.from_dir(os.path.join(DATA, "pipelines", "cross_encoder"))
