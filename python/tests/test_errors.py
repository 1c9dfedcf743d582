"""Every error path of the Python API: numpy inputs checked before C, and
the C library's statuses as TfencError subclasses with its messages."""
import itertools
import os

import numpy as np
import pytest

import tfenc
from conftest import DATA
from tfenc import errors
from tfenc._lib import lib


@pytest.fixture(scope="module")
def enc():
    return tfenc.Encoder(16, 2, 32, 1, vocab_size=30, n_token_types=2)


@pytest.fixture(scope="module")
def vec():
    return tfenc.Encoder(16, 2, 32, 1)


def test_input_checks_before_c(enc, vec):
    ids = np.array([[1, 2, 3]])
    with pytest.raises(TypeError, match="input_ids: expected integers, got dtype float64"):
        enc(ids.astype(float))
    with pytest.raises(ValueError, match=r"input_ids: expected a 2-D array \[batch, seq_len\], "
                                         r"got shape \(3,\)"):
        enc(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="input_ids: values do not fit in int32"):
        enc(np.array([[2**40]]))
    with pytest.raises(ValueError, match="pass exactly one of input_ids and input_embeds"):
        enc()
    with pytest.raises(ValueError, match="pass exactly one of input_ids and input_embeds"):
        enc(ids, input_embeds=np.zeros((1, 3, 16)))
    with pytest.raises(ValueError, match=r"attention_mask: expected shape \(1, 3\), got \(1, 4\)"):
        enc(ids, attention_mask=np.ones((1, 4)))
    with pytest.raises(ValueError, match="attention_mask: expected only 0 and 1"):
        enc(ids, attention_mask=np.array([[1.0, 0.5, 0.0]]))
    enc(ids, attention_mask=np.array([[1.0, 1.0, 0.0]]))  # float and bool masks are fine
    enc(ids, attention_mask=np.array([[True, True, False]]))
    with pytest.raises(ValueError, match=r"token_type_ids: expected shape \(1, 3\)"):
        enc(ids, token_type_ids=np.zeros((2, 3)))
    with pytest.raises(ValueError,
                       match=r"input_embeds: expected \[batch, seq_len, 16\], got \(1, 3, 8\)"):
        vec(input_embeds=np.zeros((1, 3, 8)))
    with pytest.raises(TypeError, match="key_padding_mask: expected bool"):
        vec(input_embeds=np.zeros((1, 3, 16)), key_padding_mask=np.zeros((1, 3)))
    with pytest.raises(ValueError, match="pass attention_mask or key_padding_mask, not both"):
        vec(input_embeds=np.zeros((1, 3, 16)), attention_mask=np.ones((1, 3)),
            key_padding_mask=np.zeros((1, 3), bool))
    with pytest.raises(ValueError, match=r"additive_mask: expected \(3, 3\) or \(1, 3, 3\)"):
        enc(ids, additive_mask=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="activation: expected one of"):
        tfenc.Encoder(16, 2, 32, activation="swish")


def test_c_errors_carry_the_message(enc, vec):
    with pytest.raises(tfenc.InvalidArgumentError,
                       match=r"token id 30 at \[0,1\] is outside the vocabulary \(30\)") as e:
        enc(np.array([[1, 30, 3]]))
    assert e.value.status == "TF_ERR_INVALID_ARGUMENT"
    assert isinstance(e.value, tfenc.TfencError) and isinstance(e.value, ValueError)
    with pytest.raises(tfenc.InvalidArgumentError, match="attention_mask row 0 is not right-padded"):
        enc(np.array([[1, 2, 3]]), attention_mask=np.array([[1, 0, 1]]))
    with pytest.raises(tfenc.InvalidArgumentError, match=r"token type id 2 at \[0,0\] is outside 0..1"):
        enc(np.array([[1]]), token_type_ids=np.array([[2]]))
    with pytest.raises(tfenc.InvalidArgumentError, match="input_ids given but the model has no "
                                                         "token embedding"):
        vec(np.array([[1]]))
    with pytest.raises(tfenc.InvalidArgumentError,
                       match="config.n_heads: d_model 100 is not divisible by n_heads 8"):
        tfenc.Encoder(100, 8, 32)


def test_tensor_errors(enc):
    with pytest.raises(tfenc.ShapeError,
                       match=r"layers.0.attn.q.weight: expected \[16, 16\], got \[16, 8\]"):
        enc["layers.0.attn.q.weight"] = np.zeros((16, 8))
    with pytest.raises(tfenc.NotFoundError, match="pooler.weight: no tensor of that name") as e:
        enc["pooler.weight"]
    assert isinstance(e.value, KeyError)
    with pytest.raises(tfenc.InvalidArgumentError, match=r"element \[0, 1\] is nan"):
        enc["layers.0.attn.q.weight"] = np.array([[0, np.nan] + [0] * 14] * 16)


def test_file_errors(tmp_path):
    with pytest.raises(tfenc.FileError, match="cannot open: No such file or directory") as e:
        tfenc.Encoder.from_file(tmp_path / "missing.safetensors")
    assert isinstance(e.value, OSError)
    with pytest.raises(tfenc.FormatError, match="overlap the tensor before it"):
        tfenc.Encoder.from_file(os.path.join(DATA, "malformed", "overlapping_tensors.safetensors"))
    with pytest.raises(tfenc.InvalidArgumentError, match="n_heads is unknown"):
        tfenc.Encoder.from_file(os.path.join(DATA, "variants", "f32.safetensors"))
    with pytest.raises(tfenc.UnsupportedError, match="dtype I32 is not supported"):
        tfenc.Encoder.from_file(os.path.join(DATA, "malformed", "bert_int_weight.safetensors"),
                                n_heads=2)


def test_closed_encoder():
    e = tfenc.Encoder(8, 2, 8)
    e.close()
    with pytest.raises(ValueError, match="closed"):
        e.config


def test_tokenizer_errors(vocab_path, tmp_path):
    tok = tfenc.Tokenizer(vocab_path)
    with pytest.raises(tfenc.InvalidArgumentError, match=r"text 0: invalid UTF-8 at byte 2 \(0xff\)"):
        tok.encode(b"ab\xff")
    with pytest.raises(ValueError, match="not encodable as UTF-8"):
        tok.encode("a\ud800")
    with pytest.raises(TypeError, match="expected str or bytes"):
        tok.encode(3)
    with pytest.raises(tfenc.FileError):
        tfenc.Tokenizer(tmp_path / "missing.txt")
    with pytest.raises(IndexError):
        tok.id_to_token(10**6)


def c_statuses():
    """(value, name) of every failure status the library names, from 1 up."""
    names = (lib.tf_status_name(code).decode() for code in itertools.count(1))
    return list(enumerate(itertools.takewhile(lambda n: n != "TF_ERR_UNKNOWN", names), 1))


def test_every_c_status_is_the_error_of_its_name():
    # TF_ERR_<X> is <X>Error, X in CamelCase, as Rust's Status::<X>; TF_ERR_IO is FileError
    # (errors.py says why)
    statuses = c_statuses()
    assert (4, "TF_ERR_IO") in statuses and len(statuses) >= 7
    for code, name in statuses:
        stem = name[len("TF_ERR_"):]
        expected = "File" if stem == "IO" else stem.title().replace("_", "")
        error = errors.error_for(name, "the message")
        assert (type(error).__name__, error.status, str(error)) == \
            (expected + "Error", name, "the message")
        assert getattr(tfenc, expected + "Error") is type(error)
    classes = {c for c in vars(tfenc).values() if isinstance(c, type)
               and issubclass(c, tfenc.TfencError) and c is not tfenc.TfencError}
    assert {c.status for c in classes} == {name for _, name in statuses}
