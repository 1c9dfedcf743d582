"""Every integer and boolean parameter of the public Python API is checked
before ctypes could wrap it: an integer outside its C type's range (int32,
uint64) is a ValueError, a float, bool or string where an integer is meant
a TypeError, and a boolean is True, False, 0 or 1; each message names the
argument and the value."""
import re
from types import SimpleNamespace

import numpy as np
import pytest

import tfenc
from conftest import DATA

INT32_MAX = 2**31 - 1
INT32 = (-2**31, INT32_MAX)
IDS = np.array([[1, 2, 3]])

# argument name, a call passing v as it, a value that is fine, its range
INTEGERS = [
    ("d_model", lambda c, v: tfenc.Encoder(v, 2, 8), 16, INT32),
    ("n_heads", lambda c, v: tfenc.Encoder(8, v, 8), 2, INT32),
    ("d_ff", lambda c, v: tfenc.Encoder(8, 2, v), 8, INT32),
    ("n_layers", lambda c, v: tfenc.Encoder(8, 2, 8, v), 2, INT32),
    ("vocab_size", lambda c, v: tfenc.Encoder(8, 2, 8, vocab_size=v), 5, INT32),
    ("max_positions", lambda c, v: tfenc.Encoder(8, 2, 8, max_positions=v), 4, INT32),
    ("n_token_types", lambda c, v: tfenc.Encoder(8, 2, 8, n_token_types=v), 2, INT32),
    ("seed", lambda c, v: tfenc.Encoder(8, 2, 8, seed=v), 7, (0, 2**64 - 1)),
    ("n_heads", lambda c, v: tfenc.Encoder.from_file(c.bert_dir, n_heads=v), 4, INT32),
    ("n_threads", lambda c, v: c.enc(IDS, n_threads=v), 1, (0, INT32_MAX)),
    ("batch_size", lambda c, v: c.enc.embed(["a b", "c"], c.tok, batch_size=v), 1,
     (1, INT32_MAX)),
    ("n_threads", lambda c, v: c.enc.embed(["a"], c.tok, n_threads=v), 1, (0, INT32_MAX)),
    ("max_chars_per_word", lambda c, v: tfenc.Tokenizer(c.vocab, max_chars_per_word=v), 9,
     INT32),
    ("max_length", lambda c, v: tfenc.Tokenizer(c.vocab, max_length=v), 4, INT32),
    ("id", lambda c, v: c.tok.id_to_token(v), 2, INT32),
]

# argument name, a call passing v as it
FLAGS = [
    ("embedding_norm", lambda c, v: tfenc.Encoder(8, 2, 8, embedding_norm=v)),
    ("norm_first", lambda c, v: tfenc.Encoder(8, 2, 8, norm_first=v)),
    ("final_norm", lambda c, v: tfenc.Encoder(8, 2, 8, final_norm=v)),
    ("bias", lambda c, v: tfenc.Encoder(8, 2, 8, bias=v)),
    ("pooler", lambda c, v: tfenc.Encoder(8, 2, 8, pooler=v)),
    ("norm_first", lambda c, v: tfenc.Encoder.from_file(c.bert_dir, norm_first=v)),
    ("output_hidden_states", lambda c, v: c.enc(IDS, output_hidden_states=v)),
    ("output_attentions", lambda c, v: c.enc(IDS, output_attentions=v)),
    ("causal", lambda c, v: c.enc(IDS, causal=v)),
    ("trace", lambda c, v: c.enc(IDS, trace=v)),
    ("normalize", lambda c, v: c.enc.embed(["a"], c.tok, normalize=v)),
    ("lowercase", lambda c, v: tfenc.Tokenizer(c.vocab, lowercase=v)),
    ("strip_accents", lambda c, v: tfenc.Tokenizer(c.vocab, strip_accents=v)),
    ("split_cjk", lambda c, v: tfenc.Tokenizer(c.vocab, split_cjk=v)),
    ("return_offsets", lambda c, v: c.tok.encode("a", return_offsets=v)),
]


@pytest.fixture(scope="module")
def api():
    vocab = f"{DATA}/wordpiece/vocab.txt"
    tok = tfenc.Tokenizer(vocab)
    return SimpleNamespace(vocab=vocab, tok=tok, bert_dir=f"{DATA}/bert_tiny",
                           enc=tfenc.Encoder(16, 2, 32, 1, vocab_size=tok.vocab_size))


def test_the_issues_cases(api):
    """Each of these used to go through wrapped: a 16-wide model, 2 heads,
    seed 2**64 - 1, max_length 4, the token of id 2."""
    for call, message in [
            (lambda: tfenc.Encoder(d_model=2**32 + 16, n_heads=2, d_ff=8),
             "d_model: expected an integer in [-2147483648, 2147483647], got 4294967312"),
            (lambda: tfenc.Encoder(16, n_heads=2**32 + 2, d_ff=8),
             "n_heads: expected an integer in [-2147483648, 2147483647], got 4294967298"),
            (lambda: tfenc.Encoder(16, 2, 8, seed=-1),
             "seed: expected an integer in [0, 18446744073709551615], got -1"),
            (lambda: tfenc.Tokenizer(api.vocab, max_length=2**32 + 4),
             "max_length: expected an integer in [-2147483648, 2147483647], got 4294967300"),
            (lambda: api.tok.id_to_token(2**32 + 2),
             "id: expected an integer in [-2147483648, 2147483647], got 4294967298")]:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            call()


@pytest.mark.parametrize("name, call, ok, limits", INTEGERS,
                         ids=[f"{i}-{case[0]}" for i, case in enumerate(INTEGERS)])
def test_every_integer_parameter(api, name, call, ok, limits):
    lo, hi = limits
    call(api, ok)
    call(api, np.int32(ok))  # numpy integers are integers
    span = hi - lo + 1  # ok +- span would wrap to ok in the C type
    for v in (lo - 1, hi + 1, ok + span, ok - span):
        with pytest.raises(ValueError, match=f"^{re.escape(name)}: expected an integer in "
                                             rf"\[{lo}, {hi}\], got {v}$"):
            call(api, v)
    for v, shown in ((float(ok), f"float {float(ok)}"), (True, "bool True"),
                     (np.bool_(True), "bool_ True"), (str(ok), f"str '{ok}'")):
        expected = f"{name}: expected an integer, got {shown}"
        with pytest.raises(TypeError, match=f"^{re.escape(expected)}$"):
            call(api, v)


@pytest.mark.parametrize("name, call", FLAGS, ids=[f"{i}-{case[0]}" for i, case in
                                                    enumerate(FLAGS)])
def test_every_boolean_parameter(api, name, call):
    for v in (True, False, 0, 1, np.bool_(True)):
        call(api, v)
    expected = f"{name}: expected a bool (True, False, 0 or 1), got "
    for v, error, shown in ((2, ValueError, "int 2"), (-1, ValueError, "int -1"),
                            (1.0, TypeError, "float 1.0"), ("yes", TypeError, "str 'yes'")):
        with pytest.raises(error, match=f"^{re.escape(expected + shown)}$"):
            call(api, v)


def test_embed_batch_size_is_at_least_one(api):
    texts = ["a b", "c", "d e f"]
    for bad in (-1, 0):
        with pytest.raises(ValueError, match=rf"^batch_size: expected an integer in "
                                             rf"\[1, 2147483647\], got {bad}$"):
            api.enc.embed(texts, api.tok, batch_size=bad)
    assert np.allclose(api.enc.embed(texts, api.tok, batch_size=1), api.enc.embed(texts, api.tok),
                       atol=1e-5)
