"""tfenc.SentenceTransformer by sentence-transformers' names (5.x): encode's
arguments and return forms, prompts, encode_query / encode_document,
truncate_dim, precision, similarity, max_seq_length, tokenizer, progress.
The cases are ported from sentence-transformers' docs and tests
(tests/test_sentence_transformer.py, tests/util/test_similarity.py) to the
folders of tests/data; values are checked against the float64 references
of tests/data (gen_pipelines.py) and against float64 code written here from
upstream's functions, each named where it is."""
import json
import logging
import os
import shutil
import sys
import threading

import numpy as np
import pytest

import tfenc
from conftest import DATA

PIPELINES = os.path.join(DATA, "pipelines")
FAMILIES = os.path.join(DATA, "families")
ST = os.path.join(PIPELINES, "st_mean_norm")  # BERT, mean pooling, Normalize, query/passage


def expected(path):
    with open(os.path.join(path, "expected.json")) as f:
        return json.load(f)


EXP = expected(ST)
TEXTS = EXP["texts"]
PLAIN = np.array(EXP["plain"]["embeddings"])  # [5, 16] float64, unit rows


@pytest.fixture(scope="module")
def model():
    with tfenc.SentenceTransformer(ST) as m:
        yield m


# ---- float64 references written from upstream's code ------------------------------------------

def ref_similarity(name, a, b):
    """sentence_transformers/util/similarity.py: cos_sim, dot_score,
    euclidean_sim (-torch.cdist(a, b, p=2)), manhattan_sim (-cdist p=1)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    out = np.empty((len(a), len(b)))
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if name == "cosine":
                out[i, j] = x @ y / (np.sqrt(x @ x) * np.sqrt(y @ y))
            elif name == "dot":
                out[i, j] = x @ y
            elif name == "euclidean":
                out[i, j] = -np.sqrt(((x - y) ** 2).sum())
            else:
                out[i, j] = -np.abs(x - y).sum()
    return out


def ref_buckets(e, lo, hi):
    """sentence_transformers/quantization.py quantize_embeddings: (x - start) / step,
    step = (max - min) / 255, in float32 as upstream computes float32 embeddings."""
    e, lo, hi = (np.asarray(v, np.float32) for v in (e, lo, hi))
    return (e - lo) / ((hi - lo) / 255)


def assert_buckets(got, values, offset):
    """got (uint8 or int8) is upstream's (values - offset).astype(got.dtype):
    truncated toward zero, exactly; outside the precision (where numpy's cast
    is undefined) the end bucket (include/tfenc.h)."""
    info = np.iinfo(got.dtype)
    want = np.clip(values - offset, info.min, info.max).astype(got.dtype)
    assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)


def ref_packbits(e):
    """np.packbits(e > 0) per row, written out: bit 7 - j of byte k is e[8k + j] > 0."""
    e = np.asarray(e)
    nbytes = -(-e.shape[1] // 8)
    out = np.zeros((len(e), nbytes), dtype=np.int64)
    for r, row in enumerate(e):
        for d, v in enumerate(row):
            if v > 0:
                out[r, d // 8] |= 1 << (7 - d % 8)
    return out


# ---- encode: what a str, a list and the rest give ---------------------------------------------

def test_encode_forms(model):
    """A str gives one [D] vector, a list (tuple, array, generator) [n, D],
    as SentenceTransformer.encode; values as gen_pipelines.py computed them."""
    assert model.encode(TEXTS[0]).shape == (16,)
    assert np.allclose(model.encode(TEXTS[0]), PLAIN[0], atol=1e-5, rtol=0)
    rows = model.encode(TEXTS)
    assert rows.shape == (5, 16) and rows.dtype == np.float32
    assert np.allclose(rows, PLAIN, atol=1e-5, rtol=0)
    for form in (tuple(TEXTS), np.array(TEXTS), (t for t in TEXTS)):
        assert np.array_equal(model.encode(form), rows)
    assert model.encode([]).size == 0
    for value, got in [({"a": 1}, "dict"), ({"a"}, "set"), (None, "NoneType"), (3, "int")]:
        with pytest.raises(TypeError, match=f"^sentences: expected .*, got {got}"):
            model.encode(value)


def test_batches_in_any_size_give_the_same_vectors(model):
    """encode sorts the texts longest first and runs them batch_size at a
    time, as upstream; the caller's order comes back."""
    for batch_size in (1, 2, 3, 32):
        got = model.encode(TEXTS, batch_size=batch_size)
        assert np.allclose(got, PLAIN, atol=1e-5, rtol=0)
    assert model.truncated == 1  # the last text has more than 12 tokens


def test_the_quickstart_of_sentence_transformers_docs(model):
    """docs: "Computing Embeddings": encode three sentences, then
    model.similarity(embeddings, embeddings) is [3, 3] with ones on the
    diagonal (cosine, the folder's similarity_fn_name)."""
    sentences = ["The weather is lovely today.", "It's so sunny outside!",
                 "He drove to the stadium."]
    embeddings = model.encode(sentences)
    assert embeddings.shape == (3, 16)
    similarities = model.similarity(embeddings, embeddings)
    assert similarities.shape == (3, 3)
    assert np.allclose(similarities, ref_similarity("cosine", embeddings, embeddings),
                       atol=1e-6, rtol=0)
    assert np.allclose(np.diag(similarities), 1.0, atol=1e-6)


# ---- similarity --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cosine", "dot", "euclidean", "manhattan"])
def test_similarity_functions(model, name):
    """similarity / similarity_pairwise with each similarity_fn_name, against
    float64; euclidean and manhattan are negative distances (upstream's
    test_similarity_score: the diagonal of normalised embeddings is 1 or 0)."""
    model.similarity_fn_name = name
    try:
        a, b = model.encode(TEXTS[:3]), model.encode(TEXTS[1:])
        got = model.similarity(a, b)
        assert got.shape == (3, 4) and got.dtype == np.float32
        assert np.allclose(got, ref_similarity(name, a, b), atol=1e-5, rtol=0)
        pairs = model.similarity_pairwise(a, b[:3])
        assert pairs.shape == (3,)
        assert np.allclose(pairs, np.diag(ref_similarity(name, a, b[:3])), atol=1e-5, rtol=0)
        diagonal = np.diag(model.similarity(a, a))
        assert np.allclose(diagonal, 1.0 if name in ("cosine", "dot") else 0.0, atol=1e-5)
        if name in ("euclidean", "manhattan"):
            assert (got <= 0).all() and got.min() < -0.1
    finally:
        model.similarity_fn_name = "cosine"


def test_similarity_fn_name_from_the_folder_and_set():
    with tfenc.SentenceTransformer(os.path.join(PIPELINES, "st_dense")) as m:
        assert m.similarity_fn_name == "dot"  # config_sentence_transformers.json's
        m.similarity_fn_name = None
        assert m.similarity_fn_name == "cosine"  # as upstream: None reads as cosine
        m.similarity_fn_name = "MANHATTAN"
        assert m.similarity_fn_name == "manhattan"
        with pytest.raises(ValueError, match="^similarity_fn_name: expected one of cosine, dot, "
                                             "euclidean, manhattan, got 'dot_product'"):
            m.similarity_fn_name = "dot_product"
    with tfenc.SentenceTransformer(ST, similarity_fn_name="euclidean") as m:
        assert m.similarity_fn_name == "euclidean"


def test_similarity_cases_of_upstream_tests():
    """tests/util/test_similarity.py's cases, exactly."""
    from tfenc import similarity as util
    f32 = np.float32
    a, b = np.array([[1, 0], [1, 1]], f32), np.array([[0, 0], [0, 0]], f32)
    assert np.allclose(util.pairwise_euclidean_sim(a, b), [-1.0, -np.sqrt(2.0)])
    assert np.allclose(util.pairwise_manhattan_sim(a, b), [-1.0, -2.0])
    a, b = np.array([[1, 0], [1, 0], [1, 0]], f32), np.array([[1, 0], [0, 1], [-1, 0]], f32)
    assert np.allclose(util.pairwise_cos_sim(a, b), [1.0, 0.0, -1.0])
    assert np.allclose(util.pairwise_dot_score(a, b), [1.0, 0.0, -1.0])
    a, b = np.array([[1, 0], [0, 1]], f32), np.array([[0, 0], [0, 1]], f32)
    assert np.allclose(util.euclidean_sim(a, b), [[-1.0, -np.sqrt(2.0)], [-1.0, 0.0]])
    assert np.allclose(util.manhattan_sim(a, b), [[-1.0, -2.0], [-1.0, 0]])
    a, b = np.array([[1, 0]], f32), np.array([[1, 0], [0, 1], [-1, 0]], f32)
    assert np.allclose(util.cos_sim(a, b), [[1.0, 0.0, -1.0]])
    assert np.allclose(util.dot_score(a, b), [[1.0, 0.0, -1.0]])
    rng = np.random.default_rng(7)  # test_pytorch_cos_sim: 50 x 100 float64
    a, b = rng.standard_normal((50, 100)), rng.standard_normal((50, 100))
    got = util.cos_sim(a, b)
    assert got.dtype == np.float64
    assert np.allclose(got, ref_similarity("cosine", a, b), atol=1e-12, rtol=0)
    assert np.allclose(util.pairwise_cos_sim(a, b), np.diag(ref_similarity("cosine", a, b)),
                       atol=1e-12, rtol=0)


def test_similarity_argument_forms(model):
    e = model.encode(TEXTS[:2])
    assert model.similarity(e[0], e).shape == (1, 2)  # [D] is one row
    assert np.allclose(model.similarity(e.tolist(), e), model.similarity(e, e), atol=1e-7)
    for value, error, message in [
            ("ab", TypeError, "^embeddings1: expected embeddings .*, got str"),
            ({"a": 1}, TypeError, "^embeddings1: expected embeddings .*, got dict"),
            (e.astype(np.int8), TypeError, "^embeddings1: expected floating-point embeddings, "
                                           "got int8"),
            (e[None], ValueError, r"^embeddings1: expected \[n, D\] or \[D\] embeddings, got "
                                  r"shape \(1, 2, 16\)"),
            (e[:, :8], ValueError, "^embeddings2: embeddings of 16 values, embeddings1's have 8")]:
        with pytest.raises(error, match=message):
            model.similarity(value, e)
    with pytest.raises(ValueError, match=r"^embeddings2: 1 embeddings, embeddings1 has 2"):
        model.similarity_pairwise(e, e[:1])


# ---- truncate_dim and normalize_embeddings ----------------------------------------------------

def test_truncate_dim_then_normalize(model):
    """The first truncate_dim values, not renormalised; normalize_embeddings
    then scales to unit length (upstream's encode: truncate_embeddings,
    then F.normalize)."""
    cut = model.encode(TEXTS, truncate_dim=4)
    assert cut.shape == (5, 4)
    assert np.allclose(cut, PLAIN[:, :4], atol=1e-5, rtol=0)
    assert (np.linalg.norm(cut, axis=1) < 0.999).all()
    unit = model.encode(TEXTS, truncate_dim=4, normalize_embeddings=True)
    want = PLAIN[:, :4] / np.linalg.norm(PLAIN[:, :4], axis=1, keepdims=True)
    assert np.allclose(unit, want, atol=1e-5, rtol=0)


def test_truncate_dim_of_the_model():
    """upstream's test_encode_truncate: at construction, set after, in a
    with block, and above the width (no cut)."""
    with tfenc.SentenceTransformer(ST, truncate_dim=4) as m:
        assert m.get_sentence_embedding_dimension() == 4 and m.encode("hello").shape == (4,)
        m.truncate_dim = 8
        assert m.get_sentence_embedding_dimension() == 8 and m.encode(TEXTS).shape == (5, 8)
        with m.truncate_sentence_embeddings(2):
            assert m.encode(TEXTS).shape == (5, 2)
        assert m.truncate_dim == 8
        m.truncate_dim = 32
        assert m.get_sentence_embedding_dimension() == 16 and m.encode(TEXTS).shape == (5, 16)
        m.truncate_dim = None
        assert m.get_sentence_embedding_dimension() == 16
        with pytest.raises(ValueError, match=r"^truncate_dim: expected an integer in \[1, "):
            m.truncate_dim = 0


# ---- prompts ------------------------------------------------------------------------------------

def test_prompts_as_upstream_test_prompts(model, caplog):
    """prompt= (any text), prompt_name= (a key of prompts) and both (prompt
    wins, with upstream's warning) put the same text before each sentence;
    an unknown name is upstream's ValueError."""
    assert model.prompts == {"query": "query: ", "document": "", "passage": "passage: "}
    written = model.encode(["query: " + t for t in TEXTS])
    assert np.allclose(written, EXP["query"]["embeddings"], atol=1e-5, rtol=0)
    assert np.array_equal(model.encode(TEXTS, prompt_name="query"), written)
    assert np.array_equal(model.encode(TEXTS, prompt="query: "), written)
    for other in ("query:", "query:   "):  # texts that are not the folder's: written here
        assert np.array_equal(model.encode(TEXTS, prompt=other),
                              model.encode([other + t for t in TEXTS]))
    with caplog.at_level(logging.WARNING, logger="tfenc"):
        assert np.array_equal(model.encode(TEXTS, prompt="query: ", prompt_name="passage"),
                              written)
    assert [r.getMessage() for r in caplog.records] == [
        "Encode with either a `prompt`, a `prompt_name`, or neither, but not both. "
        "Ignoring the `prompt_name` in favor of `prompt`."]
    with pytest.raises(ValueError, match=r"^Prompt name 'invalid_prompt_name' not found in the "
                                         r"configured prompts dictionary with keys \['query', "
                                         r"'document', 'passage'\]\.$"):
        model.encode(TEXTS, prompt_name="invalid_prompt_name")
    with pytest.raises(TypeError, match="^prompt: expected str or bytes, got int"):
        model.encode(TEXTS, prompt=5)


def test_prompts_given_and_default_prompt():
    with tfenc.SentenceTransformer(ST, prompts={"query": "passage: ", "clf": "x "},
                                   default_prompt_name="clf") as m:
        assert m.prompts == {"query": "passage: ", "document": "", "clf": "x ",
                             "passage": "passage: "}
        assert np.array_equal(m.encode(TEXTS), m.encode(["x " + t for t in TEXTS], prompt=""))
        assert np.array_equal(m.encode(TEXTS, prompt_name="query"),
                              m.encode(TEXTS, prompt_name="passage"))
    with pytest.raises(ValueError, match=r"^Default prompt name 'nope' not found in the "
                                         r"configured prompts dictionary with keys \['query'"):
        tfenc.SentenceTransformer(ST, default_prompt_name="nope")
    with tfenc.SentenceTransformer(os.path.join(PIPELINES, "st_dense")) as m:
        exp = expected(os.path.join(PIPELINES, "st_dense"))
        assert m.default_prompt_name == "query"  # the folder's: used unless prompt is given
        assert np.allclose(m.encode(exp["texts"]), exp["default"], atol=1e-5, rtol=0)
        assert np.allclose(m.encode(exp["texts"], prompt=""), exp["none"], atol=1e-5, rtol=0)


def test_encode_query_and_encode_document():
    """modernbert-embed-base's layout: "query" and "document" prompts, which
    encode_query and encode_document put before each text."""
    path = os.path.join(FAMILIES, "modernbert_st")
    texts = expected(path)["texts"]
    with tfenc.SentenceTransformer(path) as m:
        assert np.array_equal(m.encode_query(texts),
                              m.encode(["search_query: " + t for t in texts]))
        assert np.array_equal(m.encode_document(texts),
                              m.encode(["search_document: " + t for t in texts]))
        assert np.array_equal(m.encode_query(texts[0]), m.encode_query(texts)[0])
        assert np.array_equal(m.encode_query(texts, prompt=""), m.encode(texts))


def test_encode_document_prompt_priority(model):
    """upstream's test_encode_document_prompt_priority: "document", then
    "passage", then "corpus"; "document" is always in prompts (empty unless
    set), so a folder of "query" and "passage" prompts (e5's) encodes
    documents with none, as sentence-transformers 5 does."""
    plain = model.encode(TEXTS)
    assert np.array_equal(model.encode_document(TEXTS), plain)
    saved = dict(model.prompts)
    try:
        for prompts, used in [({"document": "query: ", "passage": "passage: "}, "query: "),
                              ({"passage": "passage: ", "corpus": "query: "}, "passage: "),
                              ({"corpus": "query: "}, "query: "), ({"query": "query: "}, "")]:
            model.prompts = prompts
            assert np.array_equal(model.encode_document(TEXTS),
                                  model.encode([used + t for t in TEXTS], prompt=""))
    finally:
        model.prompts = saved


def test_a_prompt_left_out_of_pooling(tmp_path):
    """include_prompt false (INSTRUCTOR's Pooling): the folder's own prompts
    are left out of the mean by the library; another text cannot be, and
    is refused rather than pooled with its tokens."""
    folder = tmp_path / "st"
    shutil.copytree(ST, folder)
    pooling = folder / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(json.dumps(dict(config, include_prompt=False)))
    with tfenc.SentenceTransformer(str(folder)) as m:
        left_out = m.encode(TEXTS, prompt_name="query")
        assert not np.allclose(left_out, m.encode(["query: " + t for t in TEXTS]), atol=1e-3)
        assert np.array_equal(m.encode(TEXTS, prompt="query: "), left_out)
        with pytest.raises(NotImplementedError, match="^prompt 'other: ': this folder's Pooling "
                                                      "leaves the prompt's tokens out"):
            m.encode(TEXTS, prompt="other: ")


# ---- precision ---------------------------------------------------------------------------------

@pytest.mark.parametrize("precision, dtype, width", [
    (None, np.float32, 16), ("float32", np.float32, 16), ("int8", np.int8, 16),
    ("uint8", np.uint8, 16), ("binary", np.int8, 2), ("ubinary", np.uint8, 2)])
def test_precision_dtypes(model, precision, dtype, width):
    """upstream's test_encode_quantization: the dtype of each precision."""
    got = model.encode(TEXTS, precision=precision)
    assert got.dtype == dtype and got.shape == (5, width)


def test_precision_values(model):
    """quantize_embeddings over the call's vectors: int8 and uint8 buckets of
    each dimension's range in the batch; binary and ubinary the bits of x > 0."""
    e = model.encode(TEXTS)
    values = ref_buckets(e, e.min(axis=0), e.max(axis=0))
    assert_buckets(model.encode(TEXTS, precision="uint8"), values, 0)
    assert_buckets(model.encode(TEXTS, precision="int8"), values, 128)
    bits = ref_packbits(e)
    assert np.array_equal(model.encode(TEXTS, precision="ubinary"), bits)
    assert np.array_equal(model.encode(TEXTS, precision="binary"), bits - 128)


def test_precision_refused(model):
    with pytest.raises(ValueError, match="^Precision 'error' is not supported"):
        model.encode(TEXTS, precision="error")
    with pytest.raises(ValueError, match="^embeddings: dimension 0 has no range to quantize"):
        model.encode(TEXTS[0], precision="int8")  # one vector: each range is empty


def test_quantize_embeddings_with_calibration_and_ranges(model):
    """calibration_embeddings (or ranges) give the buckets; a value outside
    them is clipped to the end bucket."""
    calibration, e = model.encode(TEXTS[:3]), model.encode(TEXTS[3:])
    lo, hi = calibration.min(axis=0), calibration.max(axis=0)
    got = tfenc.quantize_embeddings(e, "uint8", calibration_embeddings=calibration)
    assert np.array_equal(got, tfenc.quantize_embeddings(e, "uint8", ranges=np.vstack((lo, hi))))
    values = ref_buckets(e, lo, hi)
    assert ((values < 0) | (values > 255)).any()  # some fall outside the calibration's ranges
    assert_buckets(got, values, 0)
    with pytest.raises(ValueError, match=r"^ranges: expected shape \(2, 16\)"):
        tfenc.quantize_embeddings(e, "int8", ranges=lo)
    with pytest.raises(TypeError, match="^embeddings: embeddings to quantize must be float"):
        tfenc.quantize_embeddings(e.astype(np.int8), "int8", calibration_embeddings=calibration)


def test_binary_of_a_width_not_a_multiple_of_8():
    """Each row's bits packed on their own (st_dense's 6 values: one byte a
    row, its low 2 bits 0)."""
    with tfenc.SentenceTransformer(os.path.join(PIPELINES, "st_dense")) as m:
        e = m.encode(TEXTS[:4])
        assert np.array_equal(m.encode(TEXTS[:4], precision="ubinary"), ref_packbits(e))


# ---- return forms: torch, output_value, device --------------------------------------------------

def test_convert_to_tensor(model):
    """upstream's test_encode_quantization / test_empty_encode forms."""
    torch = pytest.importorskip("torch")
    rows = model.encode(TEXTS)
    t = model.encode(TEXTS, convert_to_tensor=True)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float32
    assert np.array_equal(t.numpy(), rows)
    assert model.encode(TEXTS[0], convert_to_tensor=True).shape == (16,)
    listed = model.encode(TEXTS, convert_to_numpy=False)
    assert isinstance(listed, list) and len(listed) == 5 and listed[0].dtype == torch.float32
    assert model.encode(TEXTS, convert_to_tensor=True, precision="int8").dtype == torch.int8
    assert model.encode([], convert_to_tensor=True).numel() == 0
    assert model.encode([], convert_to_numpy=False) == []
    sim = model.similarity(t, t)
    assert isinstance(sim, torch.Tensor)
    assert np.allclose(sim.numpy(), ref_similarity("cosine", rows, rows), atol=1e-5, rtol=0)


def test_convert_to_tensor_without_torch(model, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails
    with pytest.raises(ImportError, match=r"^convert_to_tensor=True gives torch tensors, and "
                                          r"torch cannot be imported"):
        model.encode(TEXTS, convert_to_tensor=True)
    with pytest.raises(ImportError, match=r"^convert_to_numpy=False gives torch tensors"):
        model.encode(TEXTS, convert_to_numpy=False)
    assert model.encode(TEXTS).shape == (5, 16)


def test_output_value_and_device(model):
    assert [m.shape[1] for m in model.encode(TEXTS, output_value="token_embeddings")] == [16] * 5
    with pytest.raises(NotImplementedError, match="^output_value=None"):
        model.encode(TEXTS, output_value=None)
    with pytest.raises(ValueError, match="^output_value: expected 'sentence_embedding' or 'token_embeddings', got 'x'"):
        model.encode(TEXTS, output_value="x")
    assert model.encode(TEXTS, device="cpu").shape == (5, 16)
    with pytest.raises(ValueError, match="^device: libtfenc runs on the CPU, got 'cuda'"):
        model.encode(TEXTS, device="cuda")
    with pytest.raises(ValueError, match="^device: libtfenc runs on the CPU, got 'cuda:0'"):
        tfenc.SentenceTransformer(ST, device="cuda:0")


# ---- max_seq_length, tokenizer, names -----------------------------------------------------------

def test_max_seq_length_settable():
    """Setting it loads the folder again with the new limit: the same vectors
    as a model loaded with it; a refused value changes nothing."""
    with tfenc.SentenceTransformer(ST) as m, \
            tfenc.SentenceTransformer(ST, max_seq_length=5) as five:
        assert m.max_seq_length == 12
        m.max_seq_length = 5
        assert m.max_seq_length == 5
        assert np.array_equal(m.encode(TEXTS), five.encode(TEXTS))
        assert m.truncated == 4  # all but "hello world" have more than 5 tokens
        with pytest.raises(tfenc.InvalidArgumentError, match="max_seq_length: expected 0 .* or "
                                                             "3..32 .*, got 2"):
            m.max_seq_length = 2
        with pytest.raises(TypeError, match="^max_seq_length: expected an integer"):
            m.max_seq_length = "5"
        assert m.max_seq_length == 5


def test_max_seq_length_set_while_other_threads_encode():
    """A call running while the limit is set finishes on the folder it began
    with; one that begins during the swap runs on the new one, never fails."""
    with tfenc.SentenceTransformer(ST) as m, \
            tfenc.SentenceTransformer(ST, max_seq_length=5) as five:
        limits = {12: m.encode(TEXTS), 5: five.encode(TEXTS)}
        got, errors = [], []

        def encode():
            try:
                for _ in range(20):
                    got.append(m.encode(TEXTS, batch_size=2))
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)
        threads = [threading.Thread(target=encode) for _ in range(3)]
        for t in threads:
            t.start()
        for i in range(20):
            m.max_seq_length = 5 if i % 2 == 0 else 12
        for t in threads:
            t.join()
    assert errors == [] and len(got) == 60
    assert all(any(np.allclose(g, want, atol=1e-6, rtol=0) for want in limits.values())
               for g in got)


def test_tokenizer_is_the_folders(model):
    """The folder's tokenizer, cutting to max_seq_length (12: [CLS], 10
    tokens, [SEP]) as the model's calls do."""
    tok = model.tokenizer
    with tfenc.Tokenizer(ST) as own:
        for text in TEXTS:
            assert tok.tokenize(text) == own.tokenize(text)[:10]
            ids = own.encode(text)
            assert tok.encode(text) == (ids if len(ids) <= 12 else ids[:11] + ids[-1:])
    with tfenc.SentenceTransformer(ST) as m:
        tok = m.tokenizer
    with pytest.raises(ValueError, match="this SentenceTransformer is closed"):
        tok.tokenize("hello")


def test_older_name():
    assert tfenc.SentenceEncoder is tfenc.SentenceTransformer


# ---- progress ----------------------------------------------------------------------------------

def test_progress_bar_plain_when_tqdm_cannot_be_imported(model, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    got = model.encode(TEXTS, batch_size=2, show_progress_bar=True)
    assert capsys.readouterr().err == ("\rBatches: 0/3\rBatches: 1/3\rBatches: 2/3"
                                       "\rBatches: 3/3\n")
    assert np.allclose(got, PLAIN, atol=1e-5, rtol=0)
    model.encode(TEXTS, batch_size=2)  # stderr is not a terminal here: no bar
    model.encode(TEXTS, batch_size=2, show_progress_bar=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="^show_progress_bar: expected a bool"):
        model.encode(TEXTS, show_progress_bar=2)


def test_progress_bar_with_tqdm(model, monkeypatch):
    """tqdm(total=batches, desc="Batches"), one update a batch, closed."""
    calls = []

    class FakeTqdm:
        def __init__(self, total, desc):
            calls.append(("new", total, desc))

        def update(self, n):
            calls.append(("update", n))

        def close(self):
            calls.append(("close",))

    module = type(sys)("tqdm")
    module.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm", module)
    model.encode(TEXTS, batch_size=4, show_progress_bar=True)
    assert calls == [("new", 2, "Batches"), ("update", 1), ("update", 1), ("close",)]
