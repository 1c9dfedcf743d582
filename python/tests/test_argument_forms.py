"""What each entry point takes as its texts, pairs, ids and counts, as the
library it mirrors takes them (sentence-transformers' encode, predict and
rank; transformers' tokenizer __call__ and pipelines): a str (or bytes) is
one text, a list, tuple, numpy array or other ordered iterable is several;
a dict (its keys), a set (no order) or None is a TypeError naming the
argument, as is a str where a list is due and a pair whose form is not its
text's. Counts (top_k, max_length, batch_size, ...) are checked before C
sees them; an explicit value is never taken as "not given". Each case
here was taken before the check: a dict as its keys, "abc" as three
documents, "xy" as two pairs of one character, top_k=-1 as "all but the
last", max_length=0 as model_max_length."""
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

PIPELINES = os.path.join(DATA, "pipelines")


@pytest.fixture(scope="module")
def tc():
    path = os.path.join(DATA, "families", "bert_token_classifier")
    with tfenc.TokenClassifier.from_dir(path) as t:
        yield t


@pytest.fixture(scope="module")
def tok():
    with tfenc.Tokenizer(os.path.join(PIPELINES, "classifier")) as t:  # its vocab.txt
        yield t


@pytest.fixture(scope="module")
def enc():
    with tfenc.Encoder.from_file(os.path.join(DATA, "bert_tiny")) as e:
        yield e


# Each entry point that takes several texts: (argument name, call with x).
TEXTS_ARGUMENTS = {
    "encode": ("sentences", lambda f, x: f["st"].encode(x)),
    "tokenizer": ("texts", lambda f, x: f["tok"](x)),
    "tokenizer pairs": ("pairs", lambda f, x: f["tok"](["a"], x)),
    "tokenizer text_pair": ("text_pair", lambda f, x: f["tok"](["a"], text_pair=x)),
    "classifier": ("inputs", lambda f, x: f["clf"](x)),
    "predict_proba": ("inputs", lambda f, x: f["clf"].predict_proba(x)),
    "predict_proba pairs": ("pairs", lambda f, x: f["clf"].predict_proba(["a"], pairs=x)),
    "token classifier": ("inputs", lambda f, x: f["tc"](x)),
    "cross-encoder": ("sentences", lambda f, x: f["ce"].predict(x)),
    "rank": ("documents", lambda f, x: f["ce"].rank("q", x)),
    "embed": ("texts", lambda f, x: f["enc"].embed(x, f["tok"])),
    "decode": ("ids", lambda f, x: f["tok"].decode(x)),
}


@pytest.fixture(scope="module")
def every(st, clf, ce, tc, tok, enc):
    return {"st": st, "clf": clf, "ce": ce, "tc": tc, "tok": tok, "enc": enc}


NOT_SEVERAL = [({"a": 1, "b": 2}, "dict"), ({"a", "b"}, "set"), (frozenset({"a"}), "frozenset"),
               (None, "NoneType"), (5, "int")]


@pytest.mark.parametrize("entry, value, type_name", [
    (entry, value, type_name) for entry in sorted(TEXTS_ARGUMENTS)
    for value, type_name in NOT_SEVERAL
    if value is not None or TEXTS_ARGUMENTS[entry][0] not in ("pairs", "text_pair")
    or entry == "cross-encoder"])  # pairs=None beside texts: no pairs
def test_no_dict_set_or_none_as_several(every, entry, value, type_name):
    name, call = TEXTS_ARGUMENTS[entry]
    with pytest.raises(TypeError, match=rf"^{name}: expected .*, got {type_name}"):
        call(every, value)


@pytest.mark.parametrize("make", [tuple, np.array, lambda texts: (t for t in texts)],
                         ids=["tuple", "ndarray", "generator"])
def test_sequences_of_texts_are_read_in_order(st, tok, tc, make):
    texts = ["a first text", "the second", "Alice lives in Paris"]
    assert np.array_equal(st.encode(make(texts)), st.encode(texts))
    assert np.array_equal(tok(make(texts))["input_ids"], tok(texts)["input_ids"])
    assert tc(make(texts)) == tc(texts)


def test_a_str_is_not_a_list_of_documents(ce):
    with pytest.raises(TypeError, match="^documents: expected a list of texts, got str"):
        ce.rank("q", "abc")
    docs = ["a dog has four legs.", "the sky is blue."]
    assert ce.rank("q", tuple(docs)) == ce.rank("q", docs)


def test_ids_are_a_sequence_of_integers(tok):
    ids = tok.encode("hello world")
    assert tok.decode(np.array(ids)) == tok.decode(ids) == tok.decode(tuple(ids))
    with pytest.raises(TypeError, match="^ids: expected a list of token ids, got str"):
        tok.decode("12")


# ---- pairs take their texts' form (transformers' _call_one) -----------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda tok: tok(["a", "b"], "xy"), "pairs: expected a list of 2 texts, as texts is, got str"),
    (lambda tok: tok(["a", "b"], text_pair="xy"),
     "text_pair: expected a list of 2 texts, as texts is, got str"),
    (lambda tok: tok("a", ["x"]), "pairs: expected a str or bytes, as texts is, got list"),
    (lambda tok: tok("a", text_pair=("x",)),
     "text_pair: expected a str or bytes, as texts is, got tuple"),
])
def test_tokenizer_pair_form_is_its_texts(tok, call, message):
    with pytest.raises(TypeError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        call(tok)


def test_tokenizer_pairs_count(tok):
    with pytest.raises(ValueError, match=r"^text_pair: expected one for each of the 2 texts, "
                                         r"got 3"):
        tok(["a", "b"], text_pair=["x", "y", "z"])


def test_tokenizer_pair_forms_that_match(tok):
    one = tok("a text", "a pair", return_tensors=None)
    assert one["input_ids"] == tok(["a text"], ["a pair"], return_tensors=None)["input_ids"][0]
    assert one["input_ids"] == tok.encode("a text", "a pair")


@pytest.mark.parametrize("texts, pairs, error, message", [
    ("a", ["x"], TypeError, "pairs: expected a str or bytes, as inputs is, got list"),
    (["a", "b"], "xy", TypeError, "pairs: expected a list of 2 texts, as inputs is, got str"),
])
def test_classifier_pair_form_is_its_texts(clf, texts, pairs, error, message):
    with pytest.raises(error, match="^" + message):
        clf.predict_proba(texts, pairs=pairs)


def test_classifier_one_text_with_one_pair(clf):
    assert np.array_equal(clf.predict_proba("a", pairs="x"), clf.predict_proba(["a"], ["x"])[0])


# ---- one (query, passage) pair is one input (sentence-transformers' predict) -----------------

@pytest.mark.parametrize("pair", [("q", "p"), ["q", "p"], (b"q", "p")])
def test_cross_encoder_one_pair_is_one_score(ce, pair):
    score = ce.predict(pair)
    assert np.shape(score) == ()
    assert score == ce.predict([("q", "p")])[0]


def test_cross_encoder_one_pair_of_several_labels():
    with tfenc.CrossEncoder.from_dir(os.path.join(PIPELINES, "classifier")) as multi:
        row = multi.predict(("q", "p"))
        assert row.shape == (3,)
        assert np.array_equal(row, multi.predict([("q", "p")])[0])
        with pytest.raises(ValueError, match=r"^CrossEncoder.rank\(\) only works for models with "
                                             r"num_labels=1"):
            multi.rank("q", ["a", "b"])


def test_cross_encoder_one_pair_of_three_refused(ce):
    with pytest.raises(ValueError, match=r"^sentences: expected a \(query, passage\) pair of two "
                                         r"texts, got list of 3"):
        ce.predict(["q", "p", "r"])


# ---- counts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("top_k, error", [(0, ValueError), (-1, ValueError),
                                          (True, TypeError), (1.0, TypeError), ("2", TypeError)])
def test_top_k_checked(clf, ce, top_k, error):
    with pytest.raises(error, match="^top_k: expected an integer"):
        clf(["a"], top_k=top_k)
    with pytest.raises(error, match="^top_k: expected an integer"):
        ce.rank("q", ["a", "b"], top_k=top_k)


def test_top_k_in_range(clf, ce):
    assert [len(r) for r in clf(["a", "b"], top_k=2)] == [2, 2]
    assert len(clf("a", top_k=None)) == len(clf("a", top_k=10)) == 3
    assert [r["corpus_id"] for r in ce.rank("q", ["a", "b", "c"], top_k=2)] == \
        [r["corpus_id"] for r in ce.rank("q", ["a", "b", "c"])][:2]


@pytest.mark.parametrize("options", [dict(truncation=True, max_length=0),
                                     dict(padding="max_length", max_length=0),
                                     dict(truncation=True, max_length=-3)])
def test_tokenizer_max_length_given_is_at_least_one(tok, options):
    with pytest.raises(ValueError, match=r"^max_length: expected an integer in \[1, "):
        tok(["a b c"], **options)


def test_tokenizer_pad_to_multiple_of_given_is_at_least_one(tok):
    with pytest.raises(ValueError, match=r"^pad_to_multiple_of: expected an integer in \[1, "):
        tok(["a b c"], pad_to_multiple_of=0)
    assert tok(["a b c"], pad_to_multiple_of=8)["input_ids"].shape == (1, 8)


@pytest.mark.parametrize("call", [
    lambda f: f["st"].encode(["a"], batch_size=0),
    lambda f: f["clf"].predict_proba(["a"], batch_size=0),
    lambda f: f["clf"](["a"], batch_size=0),
    lambda f: f["ce"].predict([("q", "p")], batch_size=0),
    lambda f: f["ce"].rank("q", ["p"], batch_size=0),
])
def test_batch_size_given_is_at_least_one(every, call):
    with pytest.raises(ValueError, match=r"^batch_size: expected an integer in \[1, "):
        call(every)


# ---- names: the argument as the caller wrote it -----------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda f: f["tc"](["ok", "a\0b"]), r"inputs\[1\]"),
    (lambda f: f["tc"]("a\0b"), "inputs"),
    (lambda f: f["st"].encode("a\0b"), "sentences"),
    (lambda f: f["st"].encode(["a"], prompt="query\0"), "prompt"),
    (lambda f: f["clf"]({"text": "a", "text_pair": "b\0"}), r'inputs\["text_pair"\]'),
    (lambda f: f["clf"]([{"text": "a\0"}]), r'inputs\[0\]\["text"\]'),
    (lambda f: f["ce"].predict([("q", "p"), ("q\0", "p")]), r"sentences\[1\]\[0\]"),
    (lambda f: f["ce"].predict(("q", "p\0")), r"sentences\[1\]"),
    (lambda f: f["ce"].rank("q\0", ["a"]), "query"),
    (lambda f: f["ce"].rank("q", ["a", "b\0"]), r"documents\[1\]"),
])
def test_a_nul_is_named_where_the_caller_put_it(every, call, name):
    with pytest.raises(ValueError, match=f"^{name}: a NUL character at byte"):
        call(every)


@pytest.mark.parametrize("call, message", [
    (lambda f: f["tok"](None), "texts: expected a str, bytes or a list of them, got NoneType"),
    (lambda f: f["tok"].encode(["a"]), "text: expected str or bytes, got list"),
    (lambda f: f["tok"].encode("a", ["b"]), "pair: expected str or bytes, got list"),
    (lambda f: f["tok"].tokenize(None), "text: expected str or bytes, got NoneType"),
    (lambda f: f["enc"].embed(["a"] * 40 + [5], f["tok"]), r"texts\[40\]: expected str or bytes, "
                                                           "got int"),
])
def test_type_errors_name_the_argument(every, call, message):
    with pytest.raises(TypeError, match="^" + message):
        call(every)


# ---- the real tokens of a row, wherever the tokenizer.json pads -------------------------------

@pytest.fixture(scope="module")
def left_padded_tokenizer(tmp_path_factory):
    """qwen3's tokenizer.json padding every row on the left to 8 tokens."""
    import json
    with open(os.path.join(DATA, "tokenizer_json", "qwen3", "tokenizer.json"),
              encoding="utf-8") as f:
        spec = json.load(f)
    spec["padding"] = {"strategy": {"Fixed": 8}, "direction": "Left", "pad_to_multiple_of": None,
                       "pad_id": 0, "pad_type_id": 0, "pad_token": "!"}
    path = tmp_path_factory.mktemp("left_padded") / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    with tfenc.Tokenizer(str(path)) as t:
        yield t


def test_encode_and_tokenize_skip_the_padding(left_padded_tokenizer):
    tok = left_padded_tokenizer
    assert tok(["hello world"])["input_ids"].shape == (1, 8)
    assert tok.encode("hello world") == [1510, 874]
    ids, offsets = tok.encode("hello world", return_offsets=True)
    assert offsets == [(0, 5), (5, 11)]
    assert tok.tokenize("hello world") == ["hello", "Ġworld"]


def test_padding_side_overrides_the_file(left_padded_tokenizer):
    """padding_side="right" pads on the right though the file says Left
    (before, it was taken as "as the file": padded on the left)."""
    tok = left_padded_tokenizer
    as_file = tok(["hello world"])
    right = tok(["hello world"], padding_side="right")
    left = tok(["hello world"], padding_side="left")
    assert as_file["input_ids"].tolist() == [[0] * 6 + [1510, 874]]
    assert left["input_ids"].tolist() == as_file["input_ids"].tolist()
    assert right["input_ids"].tolist() == [[1510, 874] + [0] * 6]
    assert right["attention_mask"].tolist() == [[1, 1] + [0] * 6]
