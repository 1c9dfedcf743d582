"""tfenc.CrossEncoder by sentence-transformers' names (5.x): predict's and
rank's arguments and return forms, activation_fn (the config's, given, and
kept as upstream keeps it), apply_softmax, max_length. Cases ported from
sentence-transformers' tests/cross_encoder/test_cross_encoder.py to
tests/data/pipelines/cross_encoder (one label, Sigmoid in its config.json)
and .../classifier (three labels); scores against the float64 ones of
expected.json (gen_pipelines.py)."""
import json
import os
import shutil

import numpy as np
import pytest

import tfenc
from conftest import DATA

PIPELINES = os.path.join(DATA, "pipelines")
CE = os.path.join(PIPELINES, "cross_encoder")
with open(os.path.join(CE, "expected.json")) as _f:
    EXP = json.load(_f)
PAIRS = [tuple(p) for p in EXP["inputs"]]  # 4 (query, passage)
SCORES = np.array([s[0] for s in EXP["out"]])  # [4] float64, the sigmoid of each logit
LOGITS = np.log(SCORES / (1 - SCORES))  # [4] float64: what Identity gives


@pytest.fixture(scope="module")
def ce():
    with tfenc.CrossEncoder(CE) as c:
        yield c


def folder_with(tmp_path, **config):
    """A copy of the cross-encoder folder, config.json's fields replaced (None: removed)."""
    folder = tmp_path / "ce"
    shutil.copytree(CE, folder)
    path = folder / "config.json"
    data = json.loads(path.read_text())
    for key, value in config.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))
    return str(folder)


# ---- the call shapes the issue named ------------------------------------------------------------

def test_one_pair_is_one_score(ce):
    """CrossEncoder.predict(("how many legs?", "four legs")): one pair, one
    numpy float32 score, as upstream's test_predict_single_input. (Before the
    binding took a str as its characters, this scored the pairs of first
    characters and gave [0.197, 0.197].)"""
    score = ce.predict(("how many legs?", "four legs"))
    assert isinstance(score, np.float32)
    assert score == ce.predict([("how many legs?", "four legs")])[0]
    assert np.isclose(ce.predict(PAIRS[0]), SCORES[0], atol=1e-5, rtol=0)
    assert np.isclose(ce.predict(list(PAIRS[0])), SCORES[0], atol=1e-5, rtol=0)


def test_rank_takes_a_list_of_documents(ce):
    """CrossEncoder.rank(q, "a dog") is a TypeError naming documents (it
    ranked each character before)."""
    with pytest.raises(TypeError, match="^documents: expected a list of texts, got str"):
        ce.rank("how many legs?", "a dog")
    with pytest.raises(TypeError, match="^query: expected str or bytes, got list"):
        ce.rank(["how many legs?"], ["a dog"])


# ---- predict ------------------------------------------------------------------------------------

def test_predict_scores_and_forms(ce):
    """upstream's test_predict_single_input, test_empty_predict and
    test_predict_output_types, on scores within 1e-5 of gen_pipelines.py's."""
    scores = ce.predict(PAIRS, batch_size=3)
    assert scores.shape == (4,) and scores.dtype == np.float32
    assert np.allclose(scores, SCORES, atol=1e-5, rtol=0)
    assert np.array_equal(ce.predict([list(p) for p in PAIRS]), scores)
    assert ce.predict([PAIRS[0]]).shape == (1,)
    assert ce.predict([]).size == 0
    for value, got in [("q p", "str"), ({"q": "p"}, "dict"), (None, "NoneType")]:
        with pytest.raises(TypeError, match=f"^sentences: expected .*, got {got}"):
            ce.predict(value)
    with pytest.raises(ValueError, match=r"^sentences\[1\]: expected a \(query, passage\) pair "
                                         r"of two texts, got tuple of 3"):
        ce.predict([PAIRS[0], ("a", "b", "c")])


def test_predict_torch_forms(ce):
    torch = pytest.importorskip("torch")
    t = ce.predict(PAIRS, convert_to_tensor=True)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float32 and t.shape == (4,)
    listed = ce.predict(PAIRS, convert_to_numpy=False)
    assert isinstance(listed, list) and listed[0].dtype == torch.float32
    assert ce.predict([], convert_to_tensor=True).numel() == 0
    assert ce.predict([], convert_to_numpy=False) == []


def test_several_labels():
    """Three labels: Identity (the logits) by default, [n, 3]; one pair a
    [3]; apply_softmax rows that sum to one (upstream's test_predict_softmax);
    rank refused with upstream's message (test_rank_multiple_labels)."""
    with tfenc.CrossEncoder(os.path.join(PIPELINES, "classifier")) as multi:
        assert multi.num_labels == 3 and multi.activation_fn is None  # the folder's: Identity
        logits = multi.predict(PAIRS)
        assert logits.shape == (4, 3)
        assert multi.predict(PAIRS[0]).shape == (3,)
        soft = multi.predict(PAIRS, apply_softmax=True)
        x = logits.astype(np.float64)
        want = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
        assert np.allclose(soft, want, atol=1e-6, rtol=0)
        assert np.allclose(soft.sum(axis=1), 1.0, atol=1e-6)
        with pytest.raises(ValueError, match=r"^CrossEncoder\.rank\(\) only works for models "
                                             r"with num_labels=1\. Consider using "
                                             r"CrossEncoder\.predict\(\) with input pairs "
                                             r"instead\.$"):
            multi.rank("q", ["a", "b"])
    with pytest.raises(ValueError, match="^num_labels: the folder's head has 1 labels, got 3"):
        tfenc.CrossEncoder(CE, num_labels=3)


# ---- activation_fn ----------------------------------------------------------------------------

@pytest.mark.parametrize("name, of", [
    ("torch.nn.modules.activation.Sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("torch.nn.modules.linear.Identity", lambda x: x),
    ("torch.nn.modules.activation.Tanh", np.tanh)])
def test_activation_fn_of_the_config(tmp_path, name, of):
    """config.json's sentence_transformers.activation_fn, as CrossEncoder's
    get_default_activation_fn reads it (ms-marco-MiniLM-L6-v2 names Identity),
    applied by the library (tf_pipeline_score)."""
    with tfenc.CrossEncoder(folder_with(tmp_path, sentence_transformers={"activation_fn": name})) \
            as c:
        assert c.activation_fn is None
        assert np.allclose(c.predict(PAIRS), of(LOGITS), atol=1e-4, rtol=0)


def test_activation_fn_default_and_refused(tmp_path):
    """None in the config: Sigmoid for one label; the older
    sbert_ce_default_activation_function is read too; a path the library
    does not compute (a torch class, or Python code outside torch, which
    upstream runs only with trust_remote_code and otherwise replaces by the
    default with a warning) is refused at load, naming the field and the
    value, even with activation_fn given."""
    with tfenc.CrossEncoder(folder_with(tmp_path / "a", sentence_transformers=None)) as c:
        assert np.allclose(c.predict(PAIRS), SCORES, atol=1e-5, rtol=0)
    legacy = folder_with(tmp_path / "b", sentence_transformers=None,
                         sbert_ce_default_activation_function="torch.nn.modules.linear.Identity")
    with tfenc.CrossEncoder(legacy) as c:
        assert np.allclose(c.predict(PAIRS), LOGITS, atol=1e-4, rtol=0)
    custom = folder_with(tmp_path / "c", sentence_transformers={"activation_fn": "my.Custom"})
    for trust in (False, True):
        with pytest.raises(tfenc.UnsupportedError, match="^config.json: sentence_transformers."
                                                         "activation_fn \"my.Custom\" is not "
                                                         "supported; supported: torch.nn's "
                                                         "Sigmoid, Identity, Tanh, ReLU, Softmax"):
            tfenc.CrossEncoder(custom, trust_remote_code=trust)
    odd = folder_with(tmp_path / "d", sentence_transformers={
        "activation_fn": "torch.nn.modules.activation.GELU"})
    for given in (None, lambda x: x):
        with pytest.raises(tfenc.UnsupportedError, match="^config.json: sentence_transformers."
                                                         "activation_fn \"torch.nn.modules."
                                                         "activation.GELU\" is not supported"):
            tfenc.CrossEncoder(odd, activation_fn=given)


def test_activation_fn_given_stays(tmp_path):
    """predict(activation_fn=f) keeps f for later calls, as upstream's
    set_activation_fn(..., set_default=False) (its
    test_load_activation_fn_from_kwargs)."""
    with tfenc.CrossEncoder(CE) as c:
        assert np.allclose(c.predict(PAIRS, activation_fn=lambda x: x), LOGITS, atol=1e-4,
                           rtol=0)
        assert np.allclose(c.predict(PAIRS), LOGITS, atol=1e-4, rtol=0)
        with pytest.raises(TypeError, match="^activation_fn: expected a callable, got str"):
            c.predict(PAIRS, activation_fn="sigmoid")


def test_torch_activation_fn():
    torch = pytest.importorskip("torch")
    with tfenc.CrossEncoder(CE, activation_fn=torch.nn.Tanh()) as c:
        assert np.allclose(c.predict(PAIRS), np.tanh(LOGITS), atol=1e-4, rtol=0)


# ---- rank ---------------------------------------------------------------------------------------

def test_rank_records(ce):
    """upstream's rank: [{"corpus_id", "score"(, "text")}], best first, the
    top_k; the scores predict's."""
    query, docs = PAIRS[0][0], [p for _, p in PAIRS]
    order = sorted(range(4), key=lambda i: -SCORES[i])
    ranked = ce.rank(query, docs)
    assert [r["corpus_id"] for r in ranked] == order
    assert [set(r) for r in ranked] == [{"corpus_id", "score"}] * 4
    assert np.allclose([r["score"] for r in ranked], SCORES[order], atol=1e-5, rtol=0)
    with_text = ce.rank(query, tuple(docs), top_k=2, return_documents=True)
    assert [(r["corpus_id"], r["text"]) for r in with_text] == [(i, docs[i]) for i in order[:2]]
    assert ce.rank(query, []) == []


# ---- max_length ---------------------------------------------------------------------------------

def test_max_length_settable():
    """As upstream's test_bge_reranker_max_length: read and set; setting
    loads the folder again with the new limit."""
    with tfenc.CrossEncoder(CE) as c, tfenc.CrossEncoder(CE, max_length=8) as short:
        assert c.max_length == 32
        c.max_length = 8
        assert c.max_length == 8
        assert np.array_equal(c.predict(PAIRS), short.predict(PAIRS))
        assert c.truncated == 4
        assert not np.allclose(c.predict(PAIRS), SCORES, atol=1e-3)
