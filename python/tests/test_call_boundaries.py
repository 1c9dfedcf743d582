"""Plain argument mistakes at the Python API's door: lengths and counts that
disagree, widths the call cannot honour, texts and names with a NUL that a C
string would end at, one text given as bytes or an iterable of characters.
Each is a Python error naming the argument and both values before C sees
it; none may crash, cut or reinterpret. (Each of these crashed, cut or
misread before the checks: strlen past the pairs for a shorter list,
"abc\\0 def" encoded as "abc".)"""
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA

PIPELINES = os.path.join(DATA, "pipelines")
FAMILIES = os.path.join(DATA, "families")


@pytest.mark.parametrize("truncate_dim", [0, -1, 2**31])
def test_truncate_dim_out_of_range(st, truncate_dim):
    with pytest.raises(ValueError, match=r"truncate_dim: expected an integer in \[1, 2147483647\], "
                                         r"got " + str(truncate_dim)):
        st.encode(["a text"], truncate_dim=truncate_dim)


def test_truncate_dim_in_range_is_the_cut(st):
    """The first values, as upstream's truncate_embeddings; more than the
    width keeps them all (as upstream)."""
    full = st.encode(["a text", "another"])
    for d in (1, 8, 16, 17):
        cut = st.encode(["a text", "another"], truncate_dim=d)
        assert cut.shape == (2, min(d, 16))
        assert np.array_equal(cut, full[:, :d])


@pytest.mark.parametrize("n_pairs", [0, 1, 3])
def test_classifier_pairs_count_must_match(clf, n_pairs):
    with pytest.raises(ValueError, match=f"pairs: expected one for each of the 2 inputs, got "
                                         f"{n_pairs}"):
        clf.predict_proba(["a", "b"], pairs=["x"] * n_pairs)


def test_classifier_pairs_matching_count(clf):
    probs = clf.predict_proba(["a", "b"], pairs=["x", "y"])
    assert probs.shape == (2, len(clf.labels))
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("pair, error, what", [(("q",), ValueError, "tuple of 1"),
                                               (("q", "p", "r"), ValueError, "tuple of 3"),
                                               ("qp", TypeError, "str"), (5, TypeError, "int")])
def test_cross_encoder_pair_shape(ce, pair, error, what):
    with pytest.raises(error, match=rf"sentences\[1\]: expected a \(query, passage\) pair of "
                                    rf"two texts, got {what}"):
        ce.predict([("q", "p"), pair])


def test_one_text_is_one_input(clf):
    """A str (or bytes) is one text, not an iterable of characters: its
    [labels] probabilities (it gave [1, labels] before), as encode gives
    a str one vector."""
    one = clf.predict_proba("a text")
    assert one.shape == (len(clf.labels),)
    assert np.array_equal(one, clf.predict_proba(["a text"])[0])
    assert np.array_equal(one, clf.predict_proba([b"a text"])[0])


def test_token_classifier_takes_bytes():
    path = os.path.join(FAMILIES, "bert_token_classifier")
    with tfenc.TokenClassifier.from_dir(path) as tc:
        text = "Hugging Face is in New York"
        assert tc(text.encode()) == tc(text)
        assert tc([text.encode(), text]) == [tc(text), tc(text)]
        with pytest.raises(TypeError, match="inputs: expected a str, bytes or a list of them, "
                                            "got int"):
            tc(5)


@pytest.mark.parametrize("call, name", [
    (lambda st: st.encode(["abc\0 def"]), r"sentences\[0\]"),
    (lambda st: st.encode("abc\0 def"), "sentences"),
    (lambda st: st.encode([b"abc\0 def"]), r"sentences\[0\]"),
])
def test_nul_in_a_pipeline_text_refused(st, call, name):
    with pytest.raises(ValueError, match=name + r": a NUL character at byte 3 of 8"):
        call(st)


def test_nul_elsewhere_refused(st, clf, ce):
    with pytest.raises(ValueError, match=r"prompt: a NUL character at byte 5"):
        st.encode(["a"], prompt="query\0junk")
    with pytest.raises(ValueError, match=r"pairs\[0\]: a NUL character at byte 1"):
        clf.predict_proba(["a"], pairs=["b\0c"])
    with pytest.raises(ValueError, match=r"sentences\[0\]\[1\]: a NUL character at byte 1"):
        ce.predict([("q", "p\0r")])
    with pytest.raises(ValueError, match="path: a NUL character at byte"):
        tfenc.SentenceEncoder.from_dir(os.path.join(PIPELINES, "st_mean_norm") + "\0junk")
    with pytest.raises(ValueError, match="path: a NUL character at byte"):
        tfenc.Encoder.from_file(os.path.join(DATA, "bert_tiny") + "\0junk")
    with tfenc.Encoder.from_file(os.path.join(DATA, "bert_tiny")) as enc:
        name = enc.keys()[0]
        with pytest.raises(ValueError, match="name: a NUL character at byte"):
            enc[name + "\0junk"]
    tok = tfenc.Tokenizer(os.path.join(DATA, "wordpiece", "vocab.txt"))
    with pytest.raises(ValueError, match="token: a NUL character at byte 1"):
        tok.token_to_id("a\0b")


def test_nul_in_a_tokenizer_text_is_encoded_whole():
    """The tokenizer takes each text with its length: a NUL is a character
    like another (BERT's normalizer drops it as a control character), never
    the text's end."""
    tok = tfenc.Tokenizer(os.path.join(DATA, "wordpiece", "vocab.txt"))
    whole = tok.encode("abc\0 def")
    assert whole == tok.encode("abc def")
    assert whole != tok.encode("abc")
