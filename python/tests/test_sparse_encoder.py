"""tfenc.SparseEncoder as sentence-transformers 5's SparseEncoder is called:
encode, encode_query and encode_document (a Router's query route), the
sparse dicts and the dense form (convert_to_sparse_tensor=False),
max_active_dims, similarity (dot), decode(embedding, top_k) and sparsity,
against the float64 references of tests/data/gen_sparse.py (expected.json)
within 1e-5 on every folder of tests/data/sparse; and its refusals."""
import json
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

SPARSE = os.path.join(DATA, "sparse")
FOLDERS = ["splade_v3", "splade_sum", "splade_pp", "opensearch_doc_v2"]


def expected(name):
    with open(os.path.join(SPARSE, name, "expected.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", FOLDERS)
def test_documents_match_the_reference(name):
    exp = expected(name)
    with tfenc.SparseEncoder(os.path.join(SPARSE, name)) as model:
        assert model.get_sentence_embedding_dimension() == exp["vocab_size"]
        dense = model.encode_document(exp["texts"], convert_to_sparse_tensor=False)
        assert dense.shape == (len(exp["texts"]), exp["vocab_size"])
        np.testing.assert_allclose(dense, np.array(exp["dense"]), atol=1e-5, rtol=0)
        sparse = model.encode(exp["texts"])
        for row, vec in zip(dense, sparse):
            assert vec["indices"].dtype == np.int32 and vec["values"].dtype == np.float32
            assert list(vec["indices"]) == list(np.flatnonzero(row))
            np.testing.assert_array_equal(vec["values"], row[vec["indices"]])
        top = model.encode(exp["texts"], max_active_dims=exp["top_k"])
        assert [list(v["indices"]) for v in top] == exp["top_k_indices"]
        assert model.similarity_fn_name == "dot"


def test_router_query_route_and_similarity():
    exp = expected("opensearch_doc_v2")
    with tfenc.SparseEncoder(os.path.join(SPARSE, "opensearch_doc_v2")) as model:
        assert model.similarity_fn_name == "dot"
        q = model.encode_query(exp["queries"], convert_to_sparse_tensor=False)
        np.testing.assert_allclose(q, np.array(exp["query_dense"]), atol=1e-5, rtol=0)
        d = model.encode_document(exp["texts"])
        scores = model.similarity(model.encode_query(exp["queries"]), d)
        np.testing.assert_allclose(scores, np.array(exp["scores"]), atol=1e-4, rtol=0)
        one = model.encode_query(exp["queries"][0])
        assert isinstance(one, dict)
        decoded = model.decode(one, top_k=2)
        row = np.array(exp["query_dense"][0])
        best = sorted(np.flatnonzero(row), key=lambda i: (-row[i], i))[:2]
        assert [t for t, _ in decoded] == [model.tokenizer.id_to_token(int(i)) for i in best]
        assert all(abs(w - row[i]) <= 1e-5 for (_, w), i in zip(decoded, best))
        assert len(model.decode(d)) == len(exp["texts"])
        assert model.sparsity(q)["active_dims"] == np.mean([np.count_nonzero(r) for r in q])


def test_refusals():
    with tfenc.SparseEncoder(os.path.join(SPARSE, "splade_v3")) as model:
        with pytest.raises(ValueError, match="max_active_dims"):
            model.encode("the cat", max_active_dims=0)
        with pytest.raises(tfenc.InvalidArgumentError, match="prompt_name \"nope\""):
            model.encode("the cat", prompt_name="nope")
        with pytest.raises(ValueError, match=r"expected \[n, 58\]"):
            model.similarity(np.zeros(3), np.zeros(58))
    with pytest.raises(ValueError, match="SparseEncoder reads sparse-embedding or fill-mask"):
        tfenc.SparseEncoder(os.path.join(DATA, "pipelines", "st_mean_norm"))
