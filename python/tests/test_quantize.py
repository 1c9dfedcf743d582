"""tfenc.quantize_embeddings (tf_quantize underneath) against the values of
tests/data/gen_quantize.py, sentence-transformers' quantize_embeddings
computed from its source: batch ranges, calibration ranges, bucket edges
where float32 and float64 differ, odd widths for the bits; then the forms
upstream takes (ranges, calibration_embeddings, a list of multi-vector
matrices) and the refusals."""
import json
import os

import numpy as np
import pytest

from conftest import DATA

import tfenc
from tfenc.errors import InvalidArgumentError

CASES = json.load(open(os.path.join(DATA, "quantize", "expected.json")))["cases"]
DTYPES = {"float32": np.float32, "int8": np.int8, "uint8": np.uint8, "binary": np.int8,
          "ubinary": np.uint8}


def arrays(case):
    """The case's embeddings [n, dim], ranges [2, dim] (or None) and expected output."""
    n, dim = case["n"], case["dim"]
    x = np.array(case["embeddings"], dtype=np.float32).reshape(n, dim)
    ranges = None if case["ranges"] is None else \
        np.array(case["ranges"], dtype=np.float32).reshape(2, dim)
    want = np.array(case["expected"], dtype=DTYPES[case["precision"]]).reshape(n, -1)
    return x, ranges, want


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference(case):
    x, ranges, want = arrays(case)
    got = tfenc.quantize_embeddings(x, case["precision"], ranges=ranges)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want)
    if ranges is not None:  # the same ranges as calibration_embeddings' minima and maxima
        calibrated = tfenc.quantize_embeddings(x, case["precision"], calibration_embeddings=ranges)
        assert np.array_equal(calibrated, want)


def test_precisions_are_the_librarys():
    assert tfenc.quantization.PRECISIONS == ("float32", "int8", "uint8", "binary", "ubinary")


def test_float64_rounded_to_float32_first():
    """float64 embeddings and ranges are computed as their float32 values
    (tfenc.h's rule), which the boundary case shows is not float64's."""
    case = next(c for c in CASES if c["name"] == "boundary_uint8")
    x, _, want = arrays(case)
    assert np.array_equal(tfenc.quantize_embeddings(x.astype(np.float64), "uint8"), want)


def test_multi_vector_list():
    """A list of [tokens, D] matrices quantized together, given back split."""
    rng = np.random.default_rng(4)
    parts = [rng.standard_normal((t, 12)).astype(np.float32) for t in (3, 1, 5)]
    for precision in ("int8", "ubinary"):
        got = tfenc.quantize_embeddings(parts, precision)
        whole = tfenc.quantize_embeddings(np.concatenate(parts), precision)
        assert [len(g) for g in got] == [3, 1, 5]
        assert np.array_equal(np.concatenate(got), whole)


def test_refused():
    x = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, np.nan]], dtype=np.float32)
    with pytest.raises(InvalidArgumentError, match=r"^embeddings\[1\]\[2\] is nan"):
        tfenc.quantize_embeddings(x, "binary")
    same = np.array([[0.1, 0.25, 0.3], [0.4, 0.25, 0.5]], dtype=np.float32)
    with pytest.raises(ValueError, match="^embeddings: dimension 1 has no range to quantize "
                                         r"\(minimum 0.25, maximum 0.25"):
        tfenc.quantize_embeddings(same, "uint8")
    reversed_ranges = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]], dtype=np.float32)
    with pytest.raises(ValueError, match="^ranges: dimension 1's maximum 0 is below its "
                                         "minimum 1"):
        tfenc.quantize_embeddings(same, "int8", ranges=reversed_ranges)
    with pytest.raises(ValueError, match="^Precision 'int4' is not supported"):
        tfenc.quantize_embeddings(same, "int4")
    with pytest.raises(TypeError, match="^embeddings: expected float embeddings, got int64"):
        tfenc.quantize_embeddings(np.array([[1, 2]]), "int8")


def test_no_rows():
    got = tfenc.quantize_embeddings(np.zeros((0, 12), dtype=np.float32), "binary")
    assert got.shape == (0, 2) and got.dtype == np.int8


# ---- hamming_distance / hamming_similarity (tf_hamming_distance) ----

def unpacked_distance(x, y, dim):
    """The reference: numpy's unpackbits of each row, the first dim bits
    compared one by one."""
    bx = np.unpackbits(x.view(np.uint8), axis=1)[:, :dim]
    by = np.unpackbits(y.view(np.uint8), axis=1)[:, :dim]
    return (bx[:, None, :] != by[None, :, :]).sum(-1)


@pytest.mark.parametrize("precision", ["binary", "ubinary"])
@pytest.mark.parametrize("dim", [1, 8, 13, 64])
def test_hamming_against_unpacked_bits(precision, dim):
    rng = np.random.default_rng(dim)
    a = tfenc.quantize_embeddings(rng.standard_normal((3, dim)).astype(np.float32), precision)
    b = tfenc.quantize_embeddings(rng.standard_normal((5, dim)).astype(np.float32), precision)
    got = tfenc.hamming_distance(a, b, dim)
    assert got.dtype == np.int32 and got.shape == (3, 5)
    assert np.array_equal(got, unpacked_distance(a, b, dim))
    assert np.array_equal(tfenc.hamming_similarity(a, b, dim), dim - got)


def test_hamming_binary_is_ubinary():
    x = np.random.default_rng(0).standard_normal((4, 20)).astype(np.float32)
    assert np.array_equal(
        tfenc.hamming_distance(tfenc.quantize_embeddings(x, "binary"),
                               tfenc.quantize_embeddings(x[::-1].copy(), "binary"), 20),
        tfenc.hamming_distance(tfenc.quantize_embeddings(x, "ubinary"),
                               tfenc.quantize_embeddings(x[::-1].copy(), "ubinary"), 20))


def test_hamming_padding_and_default_dim():
    a, b = np.array([[0xA0]], np.uint8), np.array([[0x5F]], np.uint8)  # 101 00000 / 010 11111
    assert tfenc.hamming_distance(a, b, 3)[0, 0] == 3  # the padding bits are not read
    assert tfenc.hamming_distance(a, b)[0, 0] == 8  # no dim: every bit of the row
    assert tfenc.hamming_similarity(a[0], a[0], 3)[0, 0] == 3


def test_hamming_refusals():
    row = np.zeros((1, 2), np.uint8)
    with pytest.raises(TypeError, match="a: expected packed binary"):
        tfenc.hamming_distance(row.astype(np.float32), row)
    with pytest.raises(ValueError, match="b: rows of 1 bytes, 16 values take 2"):
        tfenc.hamming_distance(row, row[:, :1], 16)
    with pytest.raises(ValueError, match="dim: expected a positive number of values, got 0"):
        tfenc.hamming_distance(row, row, 0)
    model_similarity = tfenc.similarity.similarity
    with pytest.raises(TypeError, match="packed binary / ubinary rows: tfenc.hamming_similarity"):
        model_similarity("cosine", row, row)
