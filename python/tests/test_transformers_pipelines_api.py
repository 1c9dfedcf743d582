"""tfenc.Classifier and TokenClassifier as transformers'
TextClassificationPipeline and TokenClassificationPipeline are called and
what they return, shape for shape (pipelines/text_classification.py:
__call__'s legacy form without top_k, postprocess; token_classification.py:
the argument handler, aggregation_strategy "none" by default); scores
against the float64 ones of expected.json (gen_pipelines.py,
gen_families.py)."""
import json
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

CLF = os.path.join(DATA, "pipelines", "classifier")  # softmax over negative, neutral, positive
with open(os.path.join(CLF, "expected.json")) as _f:
    EXP = json.load(_f)
TEXTS = [t for t, _ in EXP["inputs"]]
PROBS = np.array(EXP["out"])  # [3, 3] float64 softmax probabilities
LABELS = EXP["labels"]


def best(row):
    return {"label": LABELS[int(np.argmax(row))], "score": float(np.max(row))}


def assert_records(got, want):
    """Lists of {"label", "score"}: the same labels in order, scores within 1e-5."""
    assert [d["label"] for d in got] == [d["label"] for d in want]
    assert np.allclose([d["score"] for d in got], [d["score"] for d in want], atol=1e-5, rtol=0)


# ---- the call shapes the issue named ------------------------------------------------------------

def test_predict_proba_of_one_text_is_one_row(clf):
    """Classifier.predict_proba("hello"): [labels] (it gave [5, 3], a row per
    character, then [1, 3])."""
    assert clf.predict_proba(TEXTS[0]).shape == (3,)
    assert np.allclose(clf.predict_proba(TEXTS[0]), PROBS[0], atol=1e-5, rtol=0)


def test_a_dict_is_one_text_pair(clf):
    """Classifier({"text": ..., "text_pair": ...}) classifies the pair, one
    dict back as transformers' pipeline gives it (it classified the dict's
    key names before, then refused the dict)."""
    got = clf({"text": "i liked the movie.", "text_pair": "it was not good."})
    probs = clf.predict_proba("i liked the movie.", pairs="it was not good.")
    assert set(got) == {"label", "score"}
    assert got == {"label": LABELS[int(probs.argmax())], "score": float(probs.max())}
    assert clf({"text": TEXTS[0]}) == clf(TEXTS[0])[0]
    assert clf([[[TEXTS[0], "it was not good."]]]) == [got]  # the pipeline's older pair form
    assert clf([{"text": TEXTS[0], "text_pair": "it was not good."}, TEXTS[1]]) == \
        [got, clf(TEXTS[1])[0]]


# ---- shapes, as TextClassificationPipeline ------------------------------------------------------

def test_text_classification_shapes(clf):
    """Without top_k: a str gives [one dict], a list one dict each; with
    top_k (an int, or None for all) each input's list, best first."""
    one = clf(TEXTS[0])
    assert isinstance(one, list) and len(one) == 1
    assert_records(one, [best(PROBS[0])])
    several = clf(TEXTS)
    assert all(isinstance(d, dict) for d in several)
    assert_records(several, [best(p) for p in PROBS])
    ranked = [{"label": LABELS[k], "score": PROBS[0][k]} for k in np.argsort(-PROBS[0])]
    assert_records(clf(TEXTS[0], top_k=None), ranked)
    assert_records(clf(TEXTS[0], top_k=2), ranked[:2])
    assert_records(clf(TEXTS[0], top_k=1), ranked[:1])
    lists = clf(TEXTS, top_k=2)
    assert len(lists) == 3 and all(len(r) == 2 for r in lists)
    assert_records(clf([{"text": t} for t in TEXTS]), [best(p) for p in PROBS])


def test_return_all_scores_of_the_older_api(clf):
    """return_all_scores=True (deprecated there, with its warning): every
    label in the model's order, the str's list wrapped once more."""
    with pytest.warns(UserWarning, match="`return_all_scores` is now deprecated"):
        got = clf(TEXTS[0], return_all_scores=True)
    assert len(got) == 1
    assert_records(got[0], [{"label": LABELS[k], "score": PROBS[0][k]} for k in range(3)])


@pytest.mark.parametrize("function, of", [
    ("softmax", lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)),
    ("SIGMOID", lambda x: 1 / (1 + np.exp(-x)))])
def test_function_to_apply(clf, function, of):
    """function_to_apply on the logits ("none"); softmax of them is the
    folder's default (expected.json's probabilities)."""
    logits = np.array([[d["score"] for d in sorted(clf(t, top_k=None, function_to_apply="none"),
                                                    key=lambda d: LABELS.index(d["label"]))]
                       for t in TEXTS])  # [3, 3]
    softmax = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    assert np.allclose(softmax, PROBS, atol=1e-5, rtol=0)
    got = clf(TEXTS, top_k=None, function_to_apply=function)
    for row, logit_row in zip(got, logits):
        want = of(logit_row)
        assert_records(row, [{"label": LABELS[k], "score": want[k]} for k in np.argsort(-want)])
    assert_records(clf(TEXTS, function_to_apply="default"), clf(TEXTS))
    with pytest.raises(ValueError, match="^function_to_apply: expected one of sigmoid, softmax, "
                                         "none, got 'tanh'"):
        clf(TEXTS, function_to_apply="tanh")


def test_text_classification_refusals(clf):
    for value, error, message in [
            (("a", "b"), TypeError, "^inputs: expected .*, got tuple"),
            ({"text": "a", "pair": "b"}, TypeError,
             r"""^inputs: expected a \{"text", "text_pair"\} dict, got dict with keys """
             r"""\['pair', """),
            (["a", ["b", "c"]], ValueError, r"^inputs\[1\]: a list is not one input"),
            ([5], TypeError, r"^inputs\[0\]: expected a str or a \{"),
            (None, TypeError, "^inputs: expected .*, got NoneType")]:
        with pytest.raises(error, match=message):
            clf(value)


# ---- TokenClassificationPipeline ---------------------------------------------------------------

@pytest.fixture(scope="module")
def tc():
    with tfenc.TokenClassifier(os.path.join(DATA, "families", "bert_token_classifier")) as t:
        yield t


def test_token_classification_shapes(tc):
    """aggregation_strategy "none" by default, as the pipeline's; a str
    gives its entities, a list or tuple a list of them each."""
    with open(os.path.join(DATA, "families", "bert_token_classifier", "expected.json")) as f:
        cases = json.load(f)["texts"]
    text = cases[0]["text"]
    got = tc(text)
    assert [(e["entity"], e["index"], e["word"], e["start"], e["end"]) for e in got] == \
        [(w["entity"], w["index"], w["word"], w["start"], w["end"]) for w in cases[0]["none"]]
    assert np.allclose([e["score"] for e in got], [w["score"] for w in cases[0]["none"]],
                       atol=1e-5, rtol=0)
    assert tc([text, text]) == tc((text, text)) == [got, got]
    assert tc(text, aggregation_strategy="SIMPLE") == tc(text, aggregation_strategy="simple")
    with pytest.raises(TypeError, match="^inputs: expected a str, bytes or a list of them, got "
                                        "dict"):
        tc({"text": text})
