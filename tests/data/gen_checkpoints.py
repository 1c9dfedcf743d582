#!/usr/bin/python3
"""Writes the checkpoint test data (numpy only, no torch):

malformed/: each file breaks one rule of the safetensors format or of a
  model's consistency; manifest.tsv says what tf_encoder_load must answer
  (status, and a piece of the message). The tests load every file with the
  options n_heads=2, activation=gelu, norm_placement=post.
variants/: one tiny BERT (D 8, 2 layers) whose values are exact in F16 and
  BF16, stored as F32, F16 and BF16, and once more under "bert." with the
  old LayerNorm gamma/beta names and tensors to ignore (position_ids,
  an MLM head): all must load to bitwise the same weights.

    /usr/bin/python3 tests/data/gen_checkpoints.py"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MALFORMED = os.path.join(HERE, "malformed")
VARIANTS = os.path.join(HERE, "variants")
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
from safetensors_writer import encode  # noqa: E402

CASES = []


def case(name, data, status, message):
    CASES.append((name + ".safetensors", data, status, message))


def raw(header_bytes, data=b"", length=None):
    """A file from header bytes as given (no padding, no checks)."""
    n = len(header_bytes) if length is None else length
    return struct.pack("<Q", n) + header_bytes + data


def js(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def one(entry, data=bytes(24), extra=None):
    """A header with tensor 't' described by entry (plus extra keys)."""
    header = {"t": entry}
    header.update(extra or {})
    return raw(js(header), data)


GOOD = {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}


def entry(**changes):
    e = dict(GOOD)
    e.update(changes)
    return {k: v for k, v in e.items() if v is not None}


# ---- framing -----------------------------------------------------------------
case("empty", b"", "TF_ERR_FORMAT", "the file has 0 bytes")
case("short_length_prefix", b"\x10\x00\x00\x00\x00", "TF_ERR_FORMAT", "the file has 5 bytes")
case("header_length_2_63", struct.pack("<Q", 1 << 63) + b"{}", "TF_ERR_FORMAT",
     "header length 9223372036854775808 exceeds the limit of 100000000 bytes")
case("header_length_over_100mb", struct.pack("<Q", 100000001) + b"{}", "TF_ERR_FORMAT",
     "header length 100000001 exceeds the limit")
case("header_length_past_end", raw(b"{}", length=1000), "TF_ERR_FORMAT",
     "header length 1000 exceeds the 2 bytes that follow it (truncated file?)")
case("header_length_zero", raw(b""), "TF_ERR_FORMAT", "not valid JSON")

# ---- JSON ----------------------------------------------------------------------
case("not_json", raw(b"hello!!!"), "TF_ERR_FORMAT", "header: not valid JSON")
case("truncated_json", raw(b'{"t":{"dtype":"F32"'), "TF_ERR_FORMAT", "not valid JSON")
case("header_is_array", raw(b"[1,2,3] "), "TF_ERR_FORMAT", "the header is not a JSON object")
case("header_is_string", raw(b'"abcdef"'), "TF_ERR_FORMAT", "the header is not a JSON object")
case("trailing_garbage", raw(js({"t": GOOD}) + b"xx", bytes(24)), "TF_ERR_FORMAT",
     "unexpected bytes after the JSON value")
case("invalid_utf8", raw(b'{"t\xff":' + js(GOOD) + b"}", bytes(24)), "TF_ERR_FORMAT",
     "header: not valid UTF-8 at byte 3 (0xff)")
case("overlong_utf8", raw(b'{"t\xc0\xaf":' + js(GOOD) + b"}", bytes(24)), "TF_ERR_FORMAT",
     "not valid UTF-8 at byte 3 (0xc0)")
case("utf8_surrogate", raw(b'{"t\xed\xa0\x80":' + js(GOOD) + b"}", bytes(24)), "TF_ERR_FORMAT",
     "not valid UTF-8 at byte 3 (0xed)")
case("deep_nesting", raw(b'{"__metadata__":' + b"[" * 5000 + b"]" * 5000 + b"}"),
     "TF_ERR_FORMAT", "JSON nests deeper than 8 levels at byte 23")

# ---- __metadata__ ----------------------------------------------------------------
case("metadata_not_object", one(GOOD, extra={"__metadata__": 5}), "TF_ERR_FORMAT",
     "__metadata__ is not an object")
case("metadata_value_not_string", one(GOOD, extra={"__metadata__": {"n_heads": 2}}),
     "TF_ERR_FORMAT", "__metadata__['n_heads'] is not a string")
case("metadata_twice", raw(b'{"__metadata__":{},"__metadata__":{},"t":' + js(GOOD) + b"}",
                           bytes(24)), "TF_ERR_FORMAT",
     "header: key '__metadata__' appears twice in the top-level object")

# ---- one entry ----------------------------------------------------------------------
case("entry_not_object", one(5), "TF_ERR_FORMAT", "tensor 't': entry is not an object")
case("missing_dtype", one(entry(dtype=None)), "TF_ERR_FORMAT", "tensor 't': missing 'dtype'")
case("missing_shape", one(entry(shape=None)), "TF_ERR_FORMAT", "tensor 't': missing 'shape'")
case("missing_data_offsets", one(entry(data_offsets=None)), "TF_ERR_FORMAT",
     "tensor 't': missing 'data_offsets'")
case("unknown_key", one(entry(foo=1)), "TF_ERR_FORMAT", "tensor 't': unexpected key 'foo'")
case("key_twice", raw(b'{"t":{"dtype":"F32","dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}',
                      bytes(24)), "TF_ERR_FORMAT",
     "header: key 'dtype' appears twice in the object at 't'")
case("dtype_not_string", one(entry(dtype=3)), "TF_ERR_FORMAT", "tensor 't': dtype is not a string")
case("unknown_dtype", one(entry(dtype="F33")), "TF_ERR_FORMAT", "tensor 't': unknown dtype 'F33'")
case("shape_not_array", one(entry(shape="2x3")), "TF_ERR_FORMAT",
     "tensor 't': shape is not an array")
case("negative_dim", one(entry(shape=[-2, -3])), "TF_ERR_FORMAT",
     "tensor 't': shape[0] is not an integer in 0..2^53")
case("fractional_dim", one(entry(shape=[2, 2.5])), "TF_ERR_FORMAT",
     "tensor 't': shape[1] is not an integer in 0..2^53")
case("string_dim", one(entry(shape=["2", 3])), "TF_ERR_FORMAT",
     "tensor 't': shape[0] is not an integer in 0..2^53")
case("dim_near_int64_max", one(entry(shape=[9223372036854775807])), "TF_ERR_FORMAT",
     "tensor 't': shape[0] is not an integer in 0..2^53")
case("element_count_overflow", one(entry(shape=[4294967296, 4294967296, 2])), "TF_ERR_FORMAT",
     "tensor 't': the shape's element count overflows 64 bits")
case("byte_size_overflow", one(entry(dtype="F64", shape=[2147483648, 2147483648])),
     "TF_ERR_FORMAT", "tensor 't': its byte size overflows 64 bits")
case("rank_9", one(entry(shape=[1] * 9, data_offsets=[0, 4]), bytes(4)), "TF_ERR_FORMAT",
     "tensor 't': rank 9 exceeds the limit of 8")
case("offsets_three_values", one(entry(data_offsets=[0, 24, 48])), "TF_ERR_FORMAT",
     "tensor 't': data_offsets is not [begin, end]")
case("offsets_negative", one(entry(data_offsets=[-24, 0])), "TF_ERR_FORMAT",
     "tensor 't': data_offsets is not [begin, end]")
case("offsets_not_array", one(entry(data_offsets="0-24")), "TF_ERR_FORMAT",
     "tensor 't': data_offsets is not [begin, end]")
case("offsets_reversed", one(entry(data_offsets=[24, 0])), "TF_ERR_FORMAT",
     "tensor 't': dtype F32 and shape [2, 3] need 24 bytes, but data_offsets [24, 0] hold -24")
case("offsets_size_mismatch", one(entry(data_offsets=[0, 20]), bytes(20)), "TF_ERR_FORMAT",
     "tensor 't': dtype F32 and shape [2, 3] need 24 bytes, but data_offsets [0, 20] hold 20")

# ---- the data section -------------------------------------------------------------------
case("offsets_past_end", one(entry(data_offsets=[8, 32]), bytes(16)), "TF_ERR_FORMAT",
     "tensor 't': data_offsets [8, 32] run past the end of the data (16 bytes)")
case("offsets_beyond_2_53", one(entry(data_offsets=[2 ** 60, 2 ** 60 + 24])), "TF_ERR_FORMAT",
     "tensor 't': data_offsets is not [begin, end]")
two = {"dtype": "F32", "shape": [2, 2]}
case("overlapping_tensors", raw(js({"a": dict(two, data_offsets=[0, 16]),
                                     "b": dict(two, data_offsets=[8, 24])}), bytes(24)),
     "TF_ERR_FORMAT", "tensor 'b': data_offsets [8, 24] overlap the tensor before it")
case("gap_between_tensors", raw(js({"a": dict(two, data_offsets=[0, 16]),
                                     "b": dict(two, data_offsets=[24, 40])}), bytes(40)),
     "TF_ERR_FORMAT", "data bytes 16..24 belong to no tensor (a gap before 'b')")
case("data_not_from_zero", one(entry(data_offsets=[8, 32]), bytes(32)), "TF_ERR_FORMAT",
     "data bytes 0..8 belong to no tensor")
case("trailing_data", one(GOOD, bytes(30)), "TF_ERR_FORMAT",
     "6 bytes after the last tensor belong to no tensor")
case("duplicate_name", raw(b'{"t":' + js(GOOD) + b',"t":' + js(GOOD) + b"}", bytes(48)),
     "TF_ERR_FORMAT", "header: key 't' appears twice in the top-level object")


# ---- valid files, inconsistent models --------------------------------------------------------
def bert(D=4, F=8, V=10, P=6, layers=1, drop=None, change=None, extra=None):
    """A tiny BERT state_dict under Hugging Face names."""
    rng = np.random.default_rng(0)
    shapes = {"embeddings.word_embeddings.weight": [V, D],
              "embeddings.position_embeddings.weight": [P, D],
              "embeddings.token_type_embeddings.weight": [2, D],
              "embeddings.LayerNorm.weight": [D], "embeddings.LayerNorm.bias": [D]}
    for l in range(layers):
        p = f"encoder.layer.{l}."
        for w in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            shapes[p + w + ".weight"], shapes[p + w + ".bias"] = [D, D], [D]
        shapes[p + "intermediate.dense.weight"], shapes[p + "intermediate.dense.bias"] = [F, D], [F]
        shapes[p + "output.dense.weight"], shapes[p + "output.dense.bias"] = [D, F], [D]
        for n in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + n + ".weight"], shapes[p + n + ".bias"] = [D], [D]
    shapes.update(change or {})
    for k in drop or []:
        del shapes[k]
    tensors = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
    tensors.update(extra or {})
    return tensors


def pytorch(D=4, F=8, change=None):
    rng = np.random.default_rng(1)
    shapes = {"layers.0.self_attn.in_proj_weight": [3 * D, D],
              "layers.0.self_attn.in_proj_bias": [3 * D],
              "layers.0.self_attn.out_proj.weight": [D, D], "layers.0.self_attn.out_proj.bias": [D],
              "layers.0.linear1.weight": [F, D], "layers.0.linear1.bias": [F],
              "layers.0.linear2.weight": [D, F], "layers.0.linear2.bias": [D],
              "layers.0.norm1.weight": [D], "layers.0.norm1.bias": [D],
              "layers.0.norm2.weight": [D], "layers.0.norm2.bias": [D]}
    shapes.update(change or {})
    return {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}


case("unknown_model", encode({"foo.weight": np.zeros((2, 2), np.float32)}), "TF_ERR_FORMAT",
     "no tensor names of a known model")
case("bert_missing_tensor", encode(bert(drop=["encoder.layer.0.output.LayerNorm.bias"])),
     "TF_ERR_FORMAT", "missing tensor 'encoder.layer.0.output.LayerNorm.bias' (for "
     "layers.0.norm2.bias [4])")
case("bert_missing_layer", encode(bert(layers=2, drop=[k for k in bert(layers=2)
                                                       if k.startswith("encoder.layer.0.")])),
     "TF_ERR_FORMAT", "missing tensor 'encoder.layer.0.intermediate.dense.weight' "
     "(for layers.0.ffn.up.weight, which gives d_ff)")
case("bert_wrong_ffn_shape", encode(bert(layers=2, change={
    "encoder.layer.1.intermediate.dense.weight": [6, 4]})), "TF_ERR_SHAPE",
     "encoder.layer.1.intermediate.dense.weight: expected [8, 4] (for layers.1.ffn.up.weight), "
     "got [6, 4]")
case("bert_wrong_hidden", encode(bert(change={"encoder.layer.0.attention.self.key.weight": [4, 5]})),
     "TF_ERR_SHAPE", "encoder.layer.0.attention.self.key.weight: expected [4, 4] (for "
     "layers.0.attn.k.weight), got [4, 5]")
case("bert_1d_embeddings", encode(bert(change={"embeddings.word_embeddings.weight": [40]})),
     "TF_ERR_SHAPE", "embeddings.word_embeddings.weight: expected a 2-D tensor (for "
     "embed.token.weight), got rank 1")
case("bert_layer_index_huge", encode(bert(extra={
    "encoder.layer.99999.attention.self.query.weight": np.zeros((4, 4), np.float32)})),
     "TF_ERR_FORMAT", "tensor 'encoder.layer.99999.attention.self.query.weight': layer index "
     "exceeds the limit of 1024 layers")
case("bert_twice_with_prefix", encode(dict(bert(), **{
    "bert.embeddings.LayerNorm.bias": np.zeros(4, np.float32)})), "TF_ERR_FORMAT",
     "tensors 'embeddings.LayerNorm.bias' and 'bert.embeddings.LayerNorm.bias' both map to "
     "embed.norm.bias")
case("bert_int_weight", encode(dict(bert(), **{
    "embeddings.LayerNorm.weight": np.ones(4, np.int32)})), "TF_ERR_UNSUPPORTED",
     "embeddings.LayerNorm.weight: dtype I32 is not supported for weights (F32, F16 and BF16 are)")
nan_bert = bert()
nan_bert["encoder.layer.0.attention.self.value.weight"][1, 2] = np.nan
case("bert_nan_weight", encode(nan_bert), "TF_ERR_FORMAT",
     "encoder.layer.0.attention.self.value.weight: element [1, 2] is not finite; weights must be "
     "finite")
case("pytorch_in_proj_short", encode(pytorch(change={
    "layers.0.self_attn.in_proj_weight": [8, 4]})), "TF_ERR_SHAPE",
     "layers.0.self_attn.in_proj_weight: expected [12, 4] (for layers.0.attn.q.weight with k and "
     "v stacked), got [8, 4]")
case("pytorch_heads_do_not_divide", encode(pytorch(D=5, F=8)), "TF_ERR_INVALID_ARGUMENT",
     "config.n_heads: d_model 5 is not divisible by n_heads 2")
ours = {"format": "tfenc", "format_version": "1"}
case("tfenc_metadata_incomplete", encode({"layers.0.attn.q.weight": np.zeros((4, 4), np.float32)},
                                         ours), "TF_ERR_FORMAT", '__metadata__ lacks "d_model"')
case("tfenc_metadata_bad_value", encode({"layers.0.attn.q.weight": np.zeros((4, 4), np.float32)},
                                        dict(ours, d_model="four")), "TF_ERR_FORMAT",
     "__metadata__ \"d_model\": cannot read 'four' as an integer in 1..2147483647")
case("tfenc_metadata_future_version", encode({"x": np.zeros(1, np.float32)},
                                             dict(ours, format_version="2")),
     "TF_ERR_UNSUPPORTED", "__metadata__ \"format_version\" is '2'; this library reads version 1")


def variants():
    """name -> tensors of the tiny BERT in each stored form."""
    rng = np.random.default_rng(7)
    base = bert(D=8, F=16, V=12, P=10, layers=2)
    for k, v in base.items():  # k/64 in [-2, 2]: exact in F16 and BF16
        base[k] = (rng.integers(-128, 129, v.shape) / 64).astype(np.float32)
    special = base["encoder.layer.1.output.dense.bias"]
    special[:6] = [2.0 ** -24, -3 * 2.0 ** -24, -0.0, 57344.0, -1.5, 2.0 ** -14]
    bf16 = {k: ("BF16", (v.view(np.uint32) >> 16).astype(np.uint16)) for k, v in base.items()}
    old_names = {}
    for k, v in base.items():
        k = k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias",
                                                                     "LayerNorm.beta")
        old_names["bert." + k] = v
    old_names["bert.embeddings.position_ids"] = np.arange(10, dtype=np.int64)[None, :]
    old_names["cls.predictions.bias"] = np.zeros(12, np.float32)
    old_names["cls.predictions.transform.dense.weight"] = np.zeros((8, 8), np.float32)
    return {"f32": base, "f16": {k: v.astype(np.float16) for k, v in base.items()},
            "bf16": bf16, "prefixed_old_names_extras": old_names}


def main():
    for d in (MALFORMED, VARIANTS):
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            if old.endswith(".safetensors"):
                os.remove(os.path.join(d, old))
    with open(os.path.join(MALFORMED, "manifest.tsv"), "w") as manifest:
        for name, data, status, message in CASES:
            with open(os.path.join(MALFORMED, name), "wb") as f:
                f.write(data)
            manifest.write(f"{name}\t{status}\t{message}\n")
    for name, tensors in variants().items():
        with open(os.path.join(VARIANTS, name + ".safetensors"), "wb") as f:
            f.write(encode(tensors))
    print(f"wrote {len(CASES)} malformed files and {len(variants())} variants under {HERE}")


if __name__ == "__main__":
    main()
