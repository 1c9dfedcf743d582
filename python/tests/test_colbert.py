"""tfenc.ColBERT (PyLate's names) and SentenceTransformer.encode(output_value=
"token_embeddings") against tests/data/gen_colbert.py's float64 references."""
import json
import os

import numpy as np
import pytest

from conftest import DATA

import tfenc

COLBERT = os.path.join(DATA, "colbert")
CASES = ["answerai_like", "attend_residual", "no_expansion", "modernbert_like"]


def expected(name):
    with open(os.path.join(COLBERT, name, "expected.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", CASES)
def test_encode_queries_documents_and_scores(name):
    exp = expected(name)
    with tfenc.ColBERT.from_dir(os.path.join(COLBERT, name)) as model:
        assert model.kind == "multi-vector" and model.dim == exp["dim"]
        queries = model.encode(exp["queries"]["texts"], is_query=True, batch_size=3)
        assert model.truncated == exp["queries"]["truncated"]
        documents = model.encode_document(exp["documents"]["texts"])
        assert model.truncated == exp["documents"]["truncated"]
        for got, want in zip(queries + documents,
                             exp["queries"]["vectors"] + exp["documents"]["vectors"]):
            np.testing.assert_allclose(got, np.array(want), atol=1e-5)
        scores = tfenc.colbert_scores(queries, documents)
        np.testing.assert_allclose(scores, np.array(exp["scores"]), atol=1e-4)
        ranked = model.rerank(exp["queries"]["texts"][0], exp["documents"]["texts"])
        want = np.argsort(-np.array(exp["scores"][0]), kind="stable")
        assert [r["index"] for r in ranked] == list(want)
        one = model.encode(exp["queries"]["texts"][0])  # a str: one matrix
        np.testing.assert_allclose(one, queries[0], atol=1e-6)


def test_encode_runs_longest_first_and_answers_in_the_callers_order(monkeypatch):
    """PyLate's ColBERT.encode: batches of texts longest first, the matrices in
    the caller's order; the numbers as the float64 references have them."""
    exp = expected("answerai_like")
    texts, want = exp["documents"]["texts"], exp["documents"]["vectors"]
    order = [3, 4, 1, 0, 4, 2, 3]  # 11 to 70 characters (5 to 14 kept rows), repeats
    token_vectors, ran = tfenc.colbert.token_vectors, []

    def spy(pipeline, texts_run, *args, **kwargs):  # the C calls' texts, in their order
        ran.append(list(texts_run))
        return token_vectors(pipeline, texts_run, *args, **kwargs)
    monkeypatch.setattr(tfenc.colbert, "token_vectors", spy)
    with tfenc.ColBERT.from_dir(os.path.join(COLBERT, "answerai_like")) as model:
        got = model.encode([texts[i] for i in order], is_query=False, batch_size=2)
        assert model.truncated == exp["documents"]["truncated"] * order.count(4)
    lengths = [len(t) for t in ran[0]]
    assert lengths == sorted((len(texts[i]) for i in order), reverse=True)
    assert [len(m) for m in got] == [len(want[i]) for i in order]
    for m, i in zip(got, order):
        np.testing.assert_allclose(m, np.array(want[i]), atol=1e-5)
    with tfenc.ColBERT.from_dir(os.path.join(COLBERT, "answerai_like"),
                                truncation_error=True) as model:
        with pytest.raises(tfenc.InvalidArgumentError, match=r"^sentences\[2\] has more than"):
            model.encode([texts[3], texts[1], texts[4], texts[0]], is_query=False, batch_size=2)


def test_refusals():
    with tfenc.ColBERT.from_dir(os.path.join(COLBERT, "answerai_like")) as model:
        with pytest.raises(TypeError, match="is_query: expected a bool"):
            model.encode("a dog", is_query="yes")
        with pytest.raises(TypeError, match="sentences: expected a str, bytes or a list"):
            model.encode(None)
    with pytest.raises(ValueError, match="the folder's kind is embedding; ColBERT reads "
                                         "multi-vector folders"):
        tfenc.ColBERT.from_dir(os.path.join(DATA, "pipelines", "st_mean_norm"))
    with pytest.raises(ValueError, match=r"document: 3 values a row, but query has 2"):
        tfenc.colbert_scores([np.ones((2, 2))], [np.ones((2, 3))])
    with pytest.raises(tfenc.InvalidArgumentError, match=r"doc\[0, 1\]: a non-finite value"):
        tfenc.colbert_scores([np.ones((1, 2))], [np.array([[1.0, np.nan]])])


def test_token_embeddings(st):
    with open(os.path.join(COLBERT, "st_mean_norm_tokens.json")) as f:
        exp = json.load(f)
    got = st.encode(exp["texts"], output_value="token_embeddings", batch_size=2)
    assert len(got) == len(exp["texts"])
    for g, want in zip(got, exp["vectors"]):
        np.testing.assert_allclose(g, np.array(want), atol=1e-5)
    one = st.encode(exp["texts"][0], output_value="token_embeddings")
    np.testing.assert_allclose(one, got[0], atol=1e-6)
    with pytest.raises(NotImplementedError, match="output_value=None"):
        st.encode("a", output_value=None)
