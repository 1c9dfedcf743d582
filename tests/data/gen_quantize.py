#!/usr/bin/python3
"""Writes tests/data/quantize/expected.json: embeddings, the ranges given to
tf_quantize (or null: the batch's own) and the quantized values that
sentence-transformers computes for them. sentence-transformers cannot be
installed here, so `reference` follows its source,
sentence_transformers/quantization.py quantize_embeddings, step by step, in
numpy on float32 arrays as upstream receives them from encode:

  ranges    np.vstack((np.min(x, axis=0), np.max(x, axis=0))) of the
            calibration embeddings, else of the embeddings themselves
  int8      ((embeddings - starts) / steps - 128).astype(np.int8),
            starts = ranges[0, :], steps = (ranges[1, :] - ranges[0, :]) / 255
  uint8     ((embeddings - starts) / steps).astype(np.uint8)
  binary    (np.packbits(embeddings > 0) - 128).astype(np.int8)
  ubinary   np.packbits(embeddings > 0)

float32 arrays keep every step in float32 (numpy's promotion of a float32
array with a float32 array or a Python int), which the boundary case below
shows matters: float64 arithmetic puts some of its values in another bucket.

Where libtfenc defines what upstream leaves undefined, the reference says
so and checks that the two agree everywhere else:
  - a value outside the ranges (calibrated on other embeddings): numpy's
    cast of an out-of-range float is undefined in C (x86 wraps 128.5 to
    -128); here it is the end bucket, np.clip before astype;
  - bits: np.packbits over the flattened batch mixes rows when the width is
    not a multiple of 8; here each row is packed on its own (axis=-1),
    which is the same bytes for one row or a width that is a multiple of 8.
A constant dimension (max == min: 0 / 0 upstream) is refused, which
tests/test_quantize.c checks without this file.

multi_vector_reference is the same for token vectors (a ColBERT model's):
every text's rows quantized together; tests/check_cli_precision.sh and
tests/serve/test_precision.py import it and `reference` for the float32
vectors the CLI and the server answer.

    /usr/bin/python3 tests/data/gen_quantize.py"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "quantize")
RNG = np.random.default_rng(32)
BUCKETS = {"int8": (np.int8, 128, -128, 127), "uint8": (np.uint8, 0, 0, 255)}


def ranges_of(x):
    """quantize_embeddings: each dimension's minimum, then maximum [2, D]."""
    return np.vstack((np.min(x, axis=0), np.max(x, axis=0)))


def upstream_buckets(embeddings, precision, ranges):
    """quantize_embeddings' int8 / uint8 lines as written (float32 in, the
    cast numpy does, undefined outside the precision)."""
    starts = ranges[0, :]
    steps = (ranges[1, :] - ranges[0, :]) / 255
    if precision == "uint8":
        return ((embeddings - starts) / steps).astype(np.uint8)
    return ((embeddings - starts) / steps - 128).astype(np.int8)


def reference(embeddings, precision, ranges):
    """quantize_embeddings with libtfenc's two definitions (module doc)."""
    assert embeddings.dtype == np.float32 and ranges.dtype == np.float32
    if precision == "float32":
        return embeddings.astype(np.float32)
    if precision in BUCKETS:
        dtype, offset, lowest, highest = BUCKETS[precision]
        starts = ranges[0, :]
        steps = (ranges[1, :] - ranges[0, :]) / 255
        q = (embeddings - starts) / steps - offset
        assert q.dtype == np.float32
        out = np.clip(q, lowest, highest).astype(dtype)
        inside = (q > lowest - 1) & (q < highest + 1)  # numpy's cast defined
        with np.errstate(invalid="ignore"):
            assert (out[inside] == upstream_buckets(embeddings, precision, ranges)[inside]).all()
        return out
    bits = np.packbits(embeddings > 0, axis=-1)  # [n, ceil(D / 8)]
    if len(embeddings) == 1 or embeddings.shape[1] % 8 == 0:
        flat = np.packbits(embeddings > 0).reshape(embeddings.shape[0], -1)
        assert (bits == flat).all()
    return bits if precision == "ubinary" else (bits - 128).astype(np.int8)


def multi_vector_reference(matrices, precision, calibration=None):
    """Each text's [R_i, D] token vectors quantized as quantize_embeddings
    quantizes the rows of all of them (np.vstack: upstream takes one 2-D
    array), ranges from the calibration embeddings' rows, else from every
    text's rows together; split back into the texts' matrices. This is what
    `tfenc embed --multi-vector --precision` writes and /embed_all's
    "precision" answers."""
    rows = np.vstack(matrices).astype(np.float32)
    ranges = ranges_of(calibration if calibration is not None else rows)
    out = reference(rows, precision, ranges)
    ends = np.cumsum([len(m) for m in matrices])[:-1]
    return np.split(out, ends)


def normal(n, dim, scale=0.1):
    return (RNG.standard_normal((n, dim)) * scale).astype(np.float32)


def boundary_rows():
    """Rows at start + k * step (k = 0..255) in float32 for four ranges: each
    value on a bucket's edge, where rounding decides the bucket."""
    lows = np.array([-1.0, -0.3, 0.01, -5.0], dtype=np.float32)
    highs = np.array([1.0, 0.7, 0.02, 3.0], dtype=np.float32)
    steps = (highs - lows) / np.float32(255)
    k = np.arange(256, dtype=np.float32)[:, None]
    rows = (lows + k * steps).astype(np.float32)
    return np.vstack((rows, lows[None, :], highs[None, :])).astype(np.float32)


def case(name, embeddings, precision, calibration=None, ranges=None):
    """One case: the ranges tf_quantize is given (null: the batch's own)."""
    given = ranges if ranges is not None else (
        ranges_of(calibration) if calibration is not None else None)
    used = given if given is not None else ranges_of(embeddings)
    out = reference(embeddings, precision, used)
    return {
        "name": name,
        "precision": precision,
        "n": int(embeddings.shape[0]),
        "dim": int(embeddings.shape[1]),
        "embeddings": [float(v) for v in embeddings.ravel()],
        "ranges": None if given is None else [float(v) for v in given.ravel()],
        "expected": [float(v) if precision == "float32" else int(v) for v in out.ravel()],
    }


def float64_differs(rows):
    """Whether float64 arithmetic puts a boundary value in another bucket."""
    r32 = ranges_of(rows)
    q64 = (rows.astype(np.float64) - r32[0].astype(np.float64)) / (
        (r32[1].astype(np.float64) - r32[0].astype(np.float64)) / 255)
    return (np.trunc(q64) != upstream_buckets(rows, "uint8", r32)).any()


def main():
    batch = normal(6, 12)
    wide = normal(5, 12, scale=0.3)  # partly outside the calibration's range
    calibration = normal(40, 12)
    bits = normal(3, 13)
    bits[0, :4] = [0.0, -0.0, 1e-30, -1e-30]
    boundary = boundary_rows()
    assert float64_differs(boundary), "the boundary case must tell float32 from float64"
    given = np.array([[-0.2, -0.1, 0.0, 0.05, -1.0], [0.2, 0.3, 0.5, 0.06, 1.0]],
                     dtype=np.float32)
    one = np.array([[-0.3, 0.0, 0.25, 0.055, 0.999]], dtype=np.float32)
    cases = [
        case("batch_int8", batch, "int8"),
        case("batch_uint8", batch, "uint8"),
        case("calibration_int8", wide, "int8", calibration=calibration),
        case("calibration_uint8", wide, "uint8", calibration=calibration),
        case("ranges_one_row_int8", one, "int8", ranges=given),
        case("ranges_one_row_uint8", one, "uint8", ranges=given),
        case("boundary_int8", boundary, "int8"),
        case("boundary_uint8", boundary, "uint8"),
        case("float32", batch, "float32"),
        case("odd_width_binary", bits, "binary"),
        case("odd_width_ubinary", bits, "ubinary"),
        case("width_8_binary", normal(2, 8), "binary"),
        case("width_16_ubinary", normal(4, 16), "ubinary"),
        case("one_row_width_5_binary", normal(1, 5), "binary"),
    ]
    outside = reference(wide, "int8", ranges_of(calibration))
    assert (outside == -128).any() and (outside == 127).any(), "clipping at both ends"
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"generator": "tests/data/gen_quantize.py", "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
