"""tfenc.SentenceTransformer, CrossEncoder and Classifier on the model folders
of tests/data/pipelines against their float64 references (expected.json,
tests/data/gen_pipelines.py) within 1e-5."""
import json
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

PIPELINES = os.path.join(DATA, "pipelines")


def folder(name):
    path = os.path.join(PIPELINES, name)
    with open(os.path.join(path, "expected.json")) as f:
        return path, json.load(f)


def test_sentence_encoder_mean_normalize_prompts_dimensions():
    path, exp = folder("st_mean_norm")
    with tfenc.SentenceTransformer(path) as enc:
        assert (enc.dim, enc.max_seq_length, enc.similarity_fn_name) == (16, 12, "cosine")
        assert enc.prompts == {"query": "query: ", "document": "", "passage": "passage: "}
        assert enc.default_prompt_name is None
        out = enc.encode(exp["texts"])
        assert out.shape == (5, 16) and enc.truncated == 1
        assert np.allclose(out, exp["plain"]["embeddings"], atol=1e-5, rtol=0)
        q = enc.encode(exp["texts"], prompt_name="query", batch_size=2)
        assert np.allclose(q, exp["query"]["embeddings"], atol=1e-5, rtol=0)
        assert np.allclose(enc.encode(exp["texts"][0], truncate_dim=8, normalize_embeddings=True),
                           exp["dims8"][0], atol=1e-5)
        with pytest.raises(ValueError, match=r"^Prompt name 'doc' not found in the configured "
                                             r"prompts dictionary with keys \['query', "):
            enc.encode(["hello"], prompt_name="doc")
    with pytest.raises(tfenc.InvalidArgumentError, match=r"sentences\[4\] has more than 12 tokens"):
        tfenc.SentenceEncoder.from_dir(path, truncation_error=True).encode(exp["texts"])


def test_sentence_encoder_dense_and_default_prompt():
    path, exp = folder("st_dense")
    enc = tfenc.SentenceEncoder.from_dir(path)
    assert (enc.dim, enc.default_prompt_name, enc.similarity_fn_name) == (6, "query", "dot")
    assert np.allclose(enc.encode(exp["texts"]), exp["default"], atol=1e-5, rtol=0)
    assert np.allclose(enc.encode(exp["texts"], prompt=""), exp["none"], atol=1e-5, rtol=0)
    unit = enc.encode(exp["texts"], normalize_embeddings=True)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-6)


def test_cross_encoder_predict_and_rank():
    path, exp = folder("cross_encoder")
    ce = tfenc.CrossEncoder.from_dir(path)
    scores = ce.predict(exp["inputs"], batch_size=3)
    assert scores.shape == (4,)
    assert np.allclose(scores, [s[0] for s in exp["out"]], atol=1e-5, rtol=0)
    query = exp["inputs"][0][0]
    ranked = ce.rank(query, [p for _, p in exp["inputs"]], return_documents=True)
    assert [r["corpus_id"] for r in ranked] == sorted(range(4), key=lambda i: -scores[i])
    assert ranked[0]["text"] == exp["inputs"][ranked[0]["corpus_id"]][1]


def test_classifier_labels():
    path, exp = folder("classifier")
    clf = tfenc.Classifier.from_dir(path)
    assert clf.labels == ["negative", "neutral", "positive"]
    texts = [t for t, _ in exp["inputs"]]
    assert np.allclose(clf.predict_proba(texts), exp["out"], atol=1e-5, rtol=0)
    top = clf(texts[0], top_k=None)
    assert [d["label"] for d in top] == [exp["labels"][k] for k in
                                         np.argsort(exp["out"][0])[::-1]]
    assert abs(sum(d["score"] for d in top) - 1.0) < 1e-5


def test_wrong_kind_of_folder():
    with pytest.raises(ValueError, match="the folder's kind is embedding; CrossEncoder reads"):
        tfenc.CrossEncoder.from_dir(os.path.join(PIPELINES, "st_dense"))
    with pytest.raises(tfenc.FileError, match="missing: cannot open: no such file or folder"):
        tfenc.SentenceEncoder.from_dir(os.path.join(PIPELINES, "missing"))


@pytest.mark.parametrize("name", ["roberta_cross_encoder", "roberta_classifier",
                                  "distilbert_classifier", "xlmr_cross_encoder",
                                  "electra_classifier", "mpnet_classifier",
                                  "modernbert_cross_encoder", "modernbert_classifier"])
def test_other_families_heads(name):
    """RoBERTa (byte-level BPE tokenizer.json, </s></s> pairs, its classification
    head), XLM-R (a Unigram tokenizer.json), DistilBERT (pre_classifier) and
    ModernBERT (mean or CLS pooling, head.dense, head.norm; [CLS] a [SEP] b
    [SEP] pairs) folders of tests/data/families."""
    path = os.path.join(DATA, "families", name)
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    if name.endswith("cross_encoder"):
        scores = tfenc.CrossEncoder.from_dir(path).predict(exp["inputs"], batch_size=4)
        assert np.allclose(scores, [s[0] for s in exp["out"]], atol=1e-5, rtol=0)
    else:
        clf = tfenc.Classifier.from_dir(path)
        assert clf.labels == exp["labels"]
        got = clf.predict_proba([t for t, _ in exp["inputs"]], batch_size=2)
        assert np.allclose(got, exp["out"], atol=1e-5, rtol=0)


def test_xlmr_sentence_encoder():
    """XLM-R, mean pooling, Normalize, a SentencePiece Unigram tokenizer.json."""
    path = os.path.join(DATA, "families", "xlmr_st")
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        assert (enc.dim, enc.max_seq_length) == (8, 32)
        got = enc.encode(exp["texts"], batch_size=4)
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)


@pytest.mark.parametrize("name, prompt, text, written", [
    ("nomic_st", "query", "what is a cat?", "search_query: what is a cat?"),
    ("modernbert_st", "document", "a cat sat", "search_document: a cat sat")])
def test_prompted_sentence_encoders(name, prompt, text, written):
    """NomicBERT laid out as nomic-embed-text-v1.5 (mean pooling, its prompts)
    and ModernBERT as modernbert-embed-base (mean pooling, Normalize, its
    search_query: / search_document: prompts, a byte-level BPE tokenizer): the
    vectors, and a prompt as if written before the text."""
    path = os.path.join(DATA, "families", name)
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        assert (enc.dim, enc.max_seq_length) == (8, 64)
        got = enc.encode(exp["texts"], batch_size=4)
        prompted = enc.encode([text], prompt_name=prompt)
        plain = enc.encode([written])
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)
    assert np.array_equal(prompted, plain)


def test_nomic_matryoshka_layer_norm():
    """nomic-embed-text-v1.5's Matryoshka recipe (layer norm, the first 4, unit
    length) against the float64 vectors of expected_matryoshka.json."""
    path = os.path.join(DATA, "families", "nomic_st")
    with open(os.path.join(path, "expected.json")) as f:
        texts = json.load(f)["texts"]
    with open(os.path.join(path, "expected_matryoshka.json")) as f:
        exp = json.load(f)
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        got = enc.encode(texts, truncate_dim=exp["dimensions"], dimensions_layer_norm=True)
        uncut = enc.encode(texts, dimensions_layer_norm=True)
        plain = enc.encode(texts, truncate_dim=exp["dimensions"], normalize_embeddings=True)
        with pytest.raises(ValueError, match="dimensions_layer_norm: expected a bool"):
            enc.encode(texts, dimensions_layer_norm=2)
    assert got.shape == (len(texts), 4) and uncut.shape == (len(texts), 8)
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)
    assert np.allclose(uncut, exp["uncut"], atol=1e-5, rtol=0)
    assert not np.allclose(plain, exp["embeddings"], atol=1e-3, rtol=0)


@pytest.mark.parametrize("name", ["gte_st", "jina_st", "jina_code_st"])
def test_wordpiece_sentence_encoders(name):
    """GTE "new" laid out as gte-base-en-v1.5 (CLS pooling, rope_scaling ntk),
    JinaBERT v2 as jina-embeddings-v2-base-en (ALiBi, mean pooling) and its
    code variant as jina-embeddings-v2-base-code (norms on Q and K)."""
    path = os.path.join(DATA, "families", name)
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        assert (enc.dim, enc.max_seq_length) == (8, 64)
        got = enc.encode(exp["texts"], batch_size=4)
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)


def test_mpnet_sentence_encoder():
    """Laid out as all-mpnet-base-v2: MPNet, mean pooling, Normalize,
    max_seq_length 384, a WordPiece tokenizer.json with <s> and </s>; the last
    text has more than 384 tokens."""
    path = os.path.join(DATA, "families", "mpnet_st")
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        assert (enc.dim, enc.max_seq_length) == (16, 384)
        got = enc.encode(exp["texts"], batch_size=3)
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)


@pytest.mark.parametrize("folder", ["bert_token_classifier", "roberta_token_classifier"])
@pytest.mark.parametrize("strategy", ["none", "simple", "first", "average", "max"])
def test_token_classifier_entities(folder, strategy):
    """BertForTokenClassification (WordPiece) and RobertaForTokenClassification
    (byte-level BPE) folders: entities, words included, as transformers'
    TokenClassificationPipeline gives them (tests/data/gen_families.py)."""
    path = os.path.join(DATA, "families", folder)
    with open(os.path.join(path, "expected.json")) as f:
        exp = json.load(f)
    key = "entity" if strategy == "none" else "entity_group"
    with tfenc.TokenClassifier.from_dir(path) as tc:
        got = tc([t["text"] for t in exp["texts"]], aggregation_strategy=strategy)
        for entities, want in zip(got, exp["texts"]):
            assert [(e[key], e["word"], e["start"], e["end"]) for e in entities] == \
                [(w[key], w["word"], w["start"], w["end"]) for w in want[strategy]]
            assert np.allclose([e["score"] for e in entities],
                               [w["score"] for w in want[strategy]], atol=1e-5, rtol=0)
            if strategy == "none":
                assert [e["index"] for e in entities] == [w["index"] for w in want["none"]]
        with pytest.raises(ValueError, match="aggregation_strategy: expected one of none, "
                           "simple, first, average, max, got 'mean'"):
            tc("hello", aggregation_strategy="mean")
    with pytest.raises(ValueError, match="the folder's kind is classifier; TokenClassifier"):
        tfenc.TokenClassifier.from_dir(os.path.join(PIPELINES, "classifier"))


def test_minilm_max_seq_length_256():
    """As all-MiniLM-L6-v2: max_seq_length 256 below 512 positions."""
    path, exp = folder("st_minilm")
    with tfenc.SentenceEncoder.from_dir(path) as enc:
        assert enc.max_seq_length == 256
        got = enc.encode(exp["texts"])
        assert enc.truncated == 1
    assert np.allclose(got, exp["embeddings"], atol=1e-5, rtol=0)
