#!/usr/bin/python3
"""Writes the fixtures of tests/encoder_pieces/<case>/: the pieces of the modern
encoders (rotary positions, ALiBi, gated feed-forward blocks, bias-free
layers, local attention) each against a float64 PyTorch reference written
from the upstream modeling code that defines it:

  rotary (half-split)   transformers/models/modernbert/modeling_modernbert.py:
                        ModernBertRotaryEmbedding, rotate_half, apply_rotary_pos_emb
  rotary (interleaved,  nomic-ai/contrastors modeling_hf_nomic_bert.py:
   partial dimension)   rotate_half(x, interleaved), apply_rotary_emb,
                        NomicBertRotaryEmbedding._compute_inv_freq
  NTK scaling, dynamic  modeling_hf_nomic_bert.py:
                        NomicBertDynamicNTKRotaryEmbedding._update_cos_sin_cache
  NTK scaling, static   theta a^(r / (r - 2)) at every length: the dynamic formula
                        above at the trained length (GTE's NTKScalingRotaryEmbedding
                        is another formula: tests/data/gen_families.py gte)
  ALiBi                 jinaai/jina-bert-implementation modeling_bert.py:
                        _get_alibi_head_slopes, JinaBertModel.rebuild_alibi_tensor
  local attention       modeling_modernbert.py: ModernBertModel._update_attention_mask
                        (sliding_window_mask), ModernBertAttention (which layers)
  gated feed-forward    modeling_modernbert.py: ModernBertMLP (input, gate = chunk(2));
                        modeling_hf_nomic_bert.py: NomciBertGatedMLP (fc11 up, fc12
                        gate); new-impl modeling.py: NewGatedMLP; Jina's JinaBertGLUMLP
  pre-norm layer,       modeling_modernbert.py: ModernBertEncoderLayer (attn_norm is
   no norm1 in layer 0  Identity for layer_id 0), ModernBertModel (final_norm)
  post-norm layer       modeling_hf_nomic_bert.py: NomicBertBlock (prenorm=False)
  QK norm, the input    jinaai/jina-bert-v2-qk-post-norm modeling_bert.py (JinaBERT v2's
   added twice          code variant): JinaBertSelfAttention.layer_norm_q / layer_norm_k
                        (nn.LayerNorm(hidden_size) on query(x), key(x), before
                        transpose_for_scores), JinaBertLayer.forward (layer_norm_1(x +
                        attention(x)) before the MLP)
  relative position     transformers/models/mpnet/modeling_mpnet.py:
   bias                 MPNetEncoder.relative_position_bucket, compute_position_bias
                        (one relative_attention_bias table shared by every layer),
                        MPNetSelfAttention (added to the scaled scores before the mask)

Each case holds model.safetensors in libtfenc's own format (its tensor names,
the whole tf_config in __metadata__, as tf_encoder_save writes it), x.npy
[B, T, D] float32 vectors in (vocab_size 0), lengths.npy [B], and out.npy
[B, T, D] and hidden.npy [L + 1, B, T, D] computed in float64 from exactly
the stored float32 weights (with dynamic NTK also alone.npy [B, T, D]: each
sequence in a call of its own). The tests read these without torch.

The beyond_* folders (listed in folders.txt) are Hugging Face folders of
ModernBERT, GTE, JinaBERT and NomicBERT (tests/data/gen_families.py's builders
and references) run on sequences past their max_position_embeddings of 64,
which upstream computes (beyond_folders says how): config.json,
model.safetensors, input_ids.npy and lengths.npy [B, T] and [B] (int32), and
out.npy [B, T, D] (each sequence's last_hidden_state, zeros where padded).

    /usr/bin/python3 tests/encoder_pieces/gen_encoder_pieces.py   # rewrites tests/encoder_pieces/*/
"""
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
from safetensors_writer import write as write_safetensors  # noqa: E402

# tf_config as __metadata__ holds it: every key, with tf_config_init's defaults.
DEFAULTS = {
    "d_model": 32, "n_heads": 4, "d_ff": 48, "n_layers": 2, "vocab_size": 0,
    "max_positions": 0, "position": "none", "n_token_types": 0, "embedding_norm": False,
    "norm_first": False, "final_norm": False, "activation": "gelu", "bias": True,
    "pooler": False, "layer_norm_eps": 1e-5, "seed": 0,
    "ffn_gated": False, "norm_bias": False, "skip_first_norm1": False, "rotary_dim": 0,
    "rotary_interleaved": False, "rotary_base": 0.0, "rotary_base_local": 0.0,
    "rotary_ntk_factor": 0.0, "rotary_ntk_positions": 0, "attn_window": 0, "global_every": 0,
    "relative_buckets": 0, "relative_max_distance": 0, "embedding_dim": 0,
    "qk_norm": False, "add_norm1b": False,
}

CASES = [
    # ModernBERT's layout: bias-free, pre-norm without layer 0's norm1, GeGLU, half-split
    # rotary with a global and a local theta, a window of 4 with every third layer global
    ("modernbert_like", dict(n_layers=4, position="rotary", embedding_norm=True,
                             norm_first=True, final_norm=True, bias=False, ffn_gated=True,
                             skip_first_norm1=True, rotary_base=160000.0,
                             rotary_base_local=10000.0, attn_window=4, global_every=3),
     [13, 9, 1]),
    # NomicBERT's: post-norm, Linear layers without biases but LayerNorms with, SwiGLU,
    # interleaved rotary on half of each head, dynamic NTK past 8 positions
    ("nomic_like", dict(position="rotary", embedding_norm=True, bias=False, norm_bias=True,
                        activation="silu", ffn_gated=True, rotary_dim=4,
                        rotary_interleaved=True, rotary_base=1000.0, rotary_ntk_factor=2.0,
                        rotary_ntk_positions=8), [12, 7]),
    # GTE-like: biases, GeGLU, static NTK-aware scaling of a half-split rotary
    ("gte_like", dict(position="rotary", embedding_norm=True, ffn_gated=True,
                      rotary_base=500.0, rotary_ntk_factor=2.0, layer_norm_eps=1e-12),
     [10, 6, 3]),
    # JinaBERT v2's: ALiBi with 6 heads (not a power of two), GeGLU
    ("alibi_six_heads", dict(d_model=48, n_heads=6, position="alibi", embedding_norm=True,
                             ffn_gated=True, activation="gelu"), [11, 8]),
    # local attention over more than one block of query rows (64), a window of 40, with
    # ALiBi and no gate
    ("local_window_blocks", dict(d_model=16, n_heads=2, d_ff=24, n_layers=3, position="alibi",
                                 norm_first=True, attn_window=40, global_every=2,
                                 activation="gelu_tanh"), [150, 97]),
    # MPNet's: post-norm BERT layers with 32 relative buckets up to distance 128 shared by
    # the layers; 150 tokens reach the buckets' cap, 3 and 12 the exact ones and the first
    # logarithmic ones
    ("mpnet_relative", dict(d_model=16, n_heads=2, d_ff=24, position="none",
                            embedding_norm=True, layer_norm_eps=1e-12, relative_buckets=32),
     [150, 12, 3]),
    # 10 buckets (2 exact a side, an odd half) up to distance 12, with a local window and
    # pre-norm: the bias inside each block of query rows of a local layer
    ("relative_window", dict(d_model=16, n_heads=4, d_ff=24, n_layers=3, norm_first=True,
                             relative_buckets=10, relative_max_distance=12, attn_window=16,
                             global_every=2), [90, 40]),
    # JinaBERT v2 code's: ALiBi, GeGLU, LayerNorms on Q and K, the input added again after
    # add_norm1
    ("qk_norm_code", dict(d_model=16, n_heads=2, d_ff=24, position="alibi",
                          embedding_norm=True, ffn_gated=True, qk_norm=True, add_norm1b=True,
                          layer_norm_eps=1e-12), [9, 5]),
    # the norms on Q and K before a rotation, pre-norm, LayerNorms with biases only
    ("qk_norm_rotary", dict(d_model=16, n_heads=2, d_ff=24, position="rotary", norm_first=True,
                            bias=False, norm_bias=True, qk_norm=True), [7, 4]),
]


# ---- the reference, in float64, one function per upstream piece ---------------

def layer_norm(x, w, b, eps):
    """nn.LayerNorm(bias=...) as every family uses it"""
    return F.layer_norm(x, (x.shape[-1],), w, b, eps)


def activation(name):
    return {"gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
            "relu": F.relu, "silu": F.silu}[name]


def rotary_theta(c, local, seqlen):
    """theta of a layer: ModernBertAttention picks local_rope_theta for local layers;
    NTK-aware scaling theta a^(r / (r - 2)), static (always) or as
    NomicBertDynamicNTKRotaryEmbedding (dynamic, past max_position_embeddings,
    with seqlen the padded length). GTE's NTKScalingRotaryEmbedding is not
    this static formula: gen_families.py's gte follows it."""
    theta = c["rotary_base"] or 10000.0
    if local and c["rotary_base_local"]:
        theta = c["rotary_base_local"]
    a, dim = c["rotary_ntk_factor"], rotary_dim(c)
    if not a:
        return theta
    trained = c["rotary_ntk_positions"]
    if trained == 0:
        return theta * a ** (dim / (dim - 2))
    if seqlen > trained:
        return theta * (a * seqlen / trained - (a - 1)) ** (dim / (dim - 2))
    return theta


def rotary_dim(c):
    return c["rotary_dim"] or c["d_model"] // c["n_heads"]


def rotary_cos_sin(dim, theta, T, inv_freq=None):
    """NomicBertRotaryEmbedding._compute_inv_freq / ModernBertRotaryEmbedding:
    inv_freq = 1 / theta^(arange(0, dim, 2) / dim) unless given (a family's
    own, gen_families.py's GTE); freqs = t (x) inv_freq"""
    if inv_freq is None:
        inv_freq = 1.0 / theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)  # (T, dim/2)
    return freqs.cos(), freqs.sin()


def rotate_half(x, interleaved):
    """modeling_hf_nomic_bert.rotate_half (ModernBERT's is the non-interleaved one)"""
    if not interleaved:
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rotary(x, cos, sin, interleaved):
    """modeling_hf_nomic_bert.apply_rotary_emb: x (B, T, H, d_k); the first
    2 * cos.shape[-1] dimensions of each head rotate"""
    ro_dim = cos.shape[-1] * 2
    if interleaved:
        cos, sin = cos.repeat_interleave(2, dim=-1), sin.repeat_interleave(2, dim=-1)
    else:
        cos, sin = torch.cat((cos, cos), dim=-1), torch.cat((sin, sin), dim=-1)
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    rot = x[..., :ro_dim] * cos + rotate_half(x[..., :ro_dim], interleaved) * sin
    return torch.cat((rot, x[..., ro_dim:]), dim=-1)


def alibi_slopes(n):
    """modeling_bert._get_alibi_head_slopes (JinaBERT)"""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def alibi_bias(H, T):
    """JinaBertModel.rebuild_alibi_tensor: -slope * |j - i|, (H, T, T)"""
    pos = torch.arange(T)
    distance = (pos[None, :] - pos[:, None]).abs().double()
    return -torch.tensor(alibi_slopes(H), dtype=torch.float64)[:, None, None] * distance


def relative_bucket(relative, c):
    """modeling_mpnet.py MPNetEncoder.relative_position_bucket (bidirectional):
    relative = j - i; keys after the query take the upper half of the buckets; in
    each half E = half // 2 exact distances, then logarithmic ones up to
    max_distance, capped at half - 1 (the logarithm in float32, as upstream's
    n.float())"""
    half = c["relative_buckets"] // 2
    exact, far = half // 2, c["relative_max_distance"] or 128
    side = (relative > 0).long() * half
    n = relative.abs()
    scaled = torch.log(n.float() / exact) / math.log(far / exact) * (half - exact)
    large = torch.clamp(exact + scaled.long(), max=half - 1)
    return side + torch.where(n < exact, n, large)


def relative_bias(c, W, T):
    """MPNetEncoder.compute_position_bias: relative_attention_bias[bucket(j - i)],
    (H, T, T), the same for every layer"""
    pos = torch.arange(T)
    buckets = relative_bucket(pos[None, :] - pos[:, None], c)  # (T, T): [i, j]
    return W["relative_bias.weight"][buckets].permute(2, 0, 1)


def is_local(c, l):
    """ModernBertAttention: local unless layer_id % global_attn_every_n_layers == 0"""
    return c["attn_window"] > 0 and (c["global_every"] == 0 or l % c["global_every"] != 0)


def attention_bias(c, W, l, lengths, T):
    """(B, H, T, T) added to the scaled scores: MPNet's relative position bias,
    padding (the global attention mask), ALiBi, and
    ModernBertModel._update_attention_mask's window |i - j| <= local_attention // 2
    in local layers"""
    B, H = len(lengths), c["n_heads"]
    bias = torch.zeros(B, H, T, T, dtype=torch.float64)
    if c["relative_buckets"]:
        bias = bias + relative_bias(c, W, T)[None]
    keys = torch.arange(T)
    for b, n in enumerate(lengths):
        bias[b, :, :, keys >= n] = -math.inf
    if c["position"] == "alibi":
        bias = bias + alibi_bias(H, T)[None]
    if is_local(c, l):
        distance = (keys[None, :] - keys[:, None]).abs()
        bias = bias.masked_fill((distance > c["attn_window"] // 2)[None, None], -math.inf)
    return bias


def attention(c, W, p, l, x, lengths):
    """Wqkv as one (3D, D) product split q | k | v (ModernBertAttention,
    NomicBertAttention), rotary on q and k, softmax(q k^T / sqrt(d_k) + bias) v,
    then the output projection"""
    B, T, D = x.shape
    H = c["n_heads"]
    dk = D // H
    qkv = linear(x, W, p + "attn.qkv")  # (B, T, 3D)
    q, k, v = qkv.split(D, dim=-1)  # (B, T, D) each
    if c["qk_norm"]:  # JinaBertSelfAttention: layer_norm_q(query(x)), layer_norm_k(key(x))
        q, k = norm(c, W, p + "attn.q_norm", q), norm(c, W, p + "attn.k_norm", k)
    q, k, v = (t.reshape(B, T, H, dk) for t in (q, k, v))
    if c["position"] == "rotary":
        theta = rotary_theta(c, is_local(c, l), T)
        cos, sin = rotary_cos_sin(rotary_dim(c), theta, T, c.get("inv_freq"))
        q = apply_rotary(q, cos, sin, c["rotary_interleaved"])
        k = apply_rotary(k, cos, sin, c["rotary_interleaved"])
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, d_k)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dk) + attention_bias(c, W, l, lengths, T)
    # a padded query whose window holds only padding sees no key: weights 0, not NaN
    # (whose 0 * NaN would reach real tokens through v)
    weights = scores.softmax(-1).nan_to_num(0.0)
    ctx = (weights @ v).transpose(1, 2).reshape(B, T, D)
    return linear(ctx, W, p + "attn.out")


def linear(x, W, name):
    """x W^T + b; attn.qkv stands for the q, k, v weights stacked, (3D, D)"""
    if name.endswith("attn.qkv"):
        base = name[: -len("qkv")]
        w = torch.cat([W[base + n + ".weight"] for n in "qkv"])
        b = [W.get(base + n + ".bias") for n in "qkv"]
        b = None if b[0] is None else torch.cat(b)
    else:
        w, b = W[name + ".weight"], W.get(name + ".bias")
    return F.linear(x, w, b)


def ffn(c, W, p, x):
    """plain: act(up(x)); gated: act(gate(x)) * up(x) as ModernBertMLP
    (act(input) * gate), NomciBertGatedMLP (fc11(x) * act(fc12(x))), NewGatedMLP
    and JinaBertGLUMLP name the halves"""
    act = activation(c["activation"])
    if c["ffn_gated"]:
        hidden = act(linear(x, W, p + "ffn.gate")) * linear(x, W, p + "ffn.up")
    else:
        hidden = act(linear(x, W, p + "ffn.up"))
    return linear(hidden, W, p + "ffn.down")


def norm(c, W, name, x):
    return layer_norm(x, W[name + ".weight"], W.get(name + ".bias"), c["layer_norm_eps"])


def layer(c, W, l, x, lengths):
    """NomicBertBlock (post-norm); ModernBertEncoderLayer (pre-norm, attn_norm
    Identity in layer 0); with add_norm1b jina-bert-v2-qk-post-norm's
    JinaBertLayer.forward: residual = layer_norm_1(x + attention(x)), attention(x)
    being BertSelfOutput's LayerNorm(x + dense(ctx)) (norm1 here)"""
    p = f"layers.{l}."
    if not c["norm_first"]:
        a = norm(c, W, p + "norm1", x + attention(c, W, p, l, x, lengths))
        x = norm(c, W, p + "norm1b", x + a) if c["add_norm1b"] else a
        return norm(c, W, p + "norm2", x + ffn(c, W, p, x))
    attn_in = x if (l == 0 and c["skip_first_norm1"]) else norm(c, W, p + "norm1", x)
    x = x + attention(c, W, p, l, attn_in, lengths)
    return x + ffn(c, W, p, norm(c, W, p + "norm2", x))


def encoder(c, W, x, lengths):
    """the stack: embedding norm (ModernBertEmbeddings.norm, NomicBertModel.emb_ln),
    the layers, ModernBertModel.final_norm"""
    if c["embedding_norm"]:
        x = norm(c, W, "embed.norm", x)
    hidden = [x]
    for l in range(c["n_layers"]):
        x = layer(c, W, l, x, lengths)
        hidden.append(x)
    if c["final_norm"]:
        x = norm(c, W, "final_norm", x)
    return x, torch.stack(hidden)


# ---- weights, in libtfenc's names ------------------------------------------------

def tensor_names(c):
    """(name, shape, kind) in the order of the library's block (weights.c)"""
    D, F_, L = c["d_model"], c["d_ff"], c["n_layers"]
    norm_bias = c["bias"] or c["norm_bias"]
    out = []

    def add_norm(p):
        out.append((p + ".weight", (D,), "norm"))
        if norm_bias:
            out.append((p + ".bias", (D,), "norm_bias"))

    def add_linear(p, o, i):
        out.append((p + ".weight", (o, i), "linear"))
        if c["bias"]:
            out.append((p + ".bias", (o,), "linear"))

    if c["embedding_norm"]:
        add_norm("embed.norm")
    if c["relative_buckets"]:
        out.append(("relative_bias.weight", (c["relative_buckets"], c["n_heads"]), "embedding"))
    for l in range(L):
        p = f"layers.{l}."
        for n in "qkv":
            out.append((f"{p}attn.{n}.weight", (D, D), "linear"))
        if c["bias"]:
            for n in "qkv":
                out.append((f"{p}attn.{n}.bias", (D,), "linear"))
        if c["qk_norm"]:
            add_norm(p + "attn.q_norm")
            add_norm(p + "attn.k_norm")
        add_linear(p + "attn.out", D, D)
        if not (l == 0 and c["skip_first_norm1"]):
            add_norm(p + "norm1")
        if c["add_norm1b"]:
            add_norm(p + "norm1b")
        halves = ["up", "gate"] if c["ffn_gated"] else ["up"]
        for n in halves:
            out.append((f"{p}ffn.{n}.weight", (F_, D), "linear"))
        if c["bias"]:
            for n in halves:
                out.append((f"{p}ffn.{n}.bias", (F_,), "linear"))
        add_linear(p + "ffn.down", D, F_)
        add_norm(p + "norm2")
    if c["final_norm"]:
        add_norm("final_norm")
    return out


def random_weights(c, gen):
    """float32 weights: Linear ~ U(-1/sqrt(in), 1/sqrt(in)) (nn.Linear), LayerNorm
    weights 1 + 0.1 N(0, 1) and biases 0.1 N(0, 1), so that a norm left out shows"""
    W = {}
    for name, shape, kind in tensor_names(c):
        if kind == "linear":
            bound = 1.0 / math.sqrt(c["d_ff"] if ".ffn.down." in name else c["d_model"])
            t = (torch.rand(shape, generator=gen) * 2 - 1) * bound
        elif kind == "norm":
            t = 1.0 + 0.1 * torch.randn(shape, generator=gen)
        elif kind == "embedding":  # nn.Embedding's N(0, 1)
            t = torch.randn(shape, generator=gen)
        else:
            t = 0.1 * torch.randn(shape, generator=gen)
        W[name] = t.float()
    return W


def metadata(c):
    def text(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return repr(float(v)) if isinstance(v, float) else str(v)  # strings as they are
    m = {"format": "tfenc", "format_version": "1"}
    m.update({k: text(v) for k, v in c.items()})
    return m


def make_case(seed, name, changes, lengths):
    c = dict(DEFAULTS)
    c.update(changes)
    gen = torch.Generator().manual_seed(seed)
    W = random_weights(c, gen)
    B, T, D = len(lengths), max(lengths), c["d_model"]
    x = torch.randn(B, T, D, generator=gen)
    for b, n in enumerate(lengths):
        x[b, n:] = 0.0  # padding; its values must not matter
    W64 = {k: v.double() for k, v in W.items()}
    with torch.no_grad():
        out, hidden = encoder(c, W64, x.double(), lengths)
    for b, n in enumerate(lengths):  # the library writes 0 at padded positions
        out[b, n:] = 0.0
        hidden[:, b, n:] = 0.0

    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: np.ascontiguousarray(v.numpy()) for k, v in W.items()}, metadata(c))
    np.save(os.path.join(d, "x.npy"), x.numpy())
    np.save(os.path.join(d, "lengths.npy"), np.array(lengths, dtype=np.int32))
    np.save(os.path.join(d, "out.npy"), out.float().numpy())
    np.save(os.path.join(d, "hidden.npy"), hidden.float().numpy())
    if c["rotary_ntk_factor"] and c["rotary_ntk_positions"]:
        np.save(os.path.join(d, "alone.npy"), alone(c, W64, x.double(), lengths).float().numpy())
    return name


def alone(c, W64, x, lengths):
    """[B, T, D]: each sequence run in a call of its own (B 1, padded to its
    own length; zeros past it), so that dynamic NTK scales each by its own
    length: upstream's NomicBertDynamicNTKRotaryEmbedding would instead keep
    the tables of the longest call it has seen."""
    out = torch.zeros_like(x)
    with torch.no_grad():
        for b, n in enumerate(lengths):
            out[b, :n] = encoder(c, W64, x[b:b + 1, :n], [n])[0][0]
    return out


# Seeds of the loader's fuzz corpus (fuzz/corpus/loader): each case's config on a
# model of D 8, 2 layers, and configs whose 0.4.0 keys are out of range or do
# not fit together, which the loader must refuse by name.
FUZZ_SEEDS = [(name, changes) for name, changes, _ in CASES] + [
    ("bad_rotary_dim_odd", dict(position="rotary", rotary_dim=3)),
    ("bad_rotary_base_nan", dict(position="rotary", rotary_base="nan")),
    ("bad_rotary_without_rotary", dict(position="alibi", rotary_base=500.0)),
    ("bad_ntk_positions_alone", dict(position="rotary", rotary_ntk_positions=64)),
    ("bad_window_odd", dict(attn_window=5)),
    ("bad_global_every_alone", dict(global_every=3)),
    ("bad_skip_post_norm", dict(skip_first_norm1=True)),
    ("bad_position_name", dict(position="rope")),
    ("bad_gated_text", dict(ffn_gated="yes")),
    ("bad_relative_odd", dict(relative_buckets=31)),
    ("bad_relative_distance_alone", dict(relative_max_distance=64)),
    ("bad_relative_distance_short", dict(relative_buckets=32, relative_max_distance=8)),
    ("bad_add_norm1b_pre_norm", dict(add_norm1b=True, norm_first=True)),
    ("bad_qk_norm_text", dict(qk_norm="2")),
]


def write_fuzz_seeds():
    corpus = os.path.join(HERE, "..", "..", "fuzz", "corpus", "loader")
    for i, (name, changes) in enumerate(FUZZ_SEEDS):
        c = dict(DEFAULTS)
        c.update({k: v for k, v in changes.items() if k not in ("d_model", "n_heads", "d_ff")})
        c.update(d_model=8, n_heads=2, d_ff=8, n_layers=2)
        gen = torch.Generator().manual_seed(900 + i)
        W = random_weights(dict(c, ffn_gated=c["ffn_gated"] is True), gen)  # "yes": plain
        write_safetensors(os.path.join(corpus, "modern_" + name + ".safetensors"),
                          {k: np.ascontiguousarray(v.numpy()) for k, v in W.items()},
                          metadata(c))


# ---- Hugging Face folders run past their trained length ---------------------------

TRAINED = 64  # each beyond_* folder's max_position_embeddings (NomicBERT's n_positions)


def beyond_folders():
    """[(name, Hub-named weights, config.json, forward(ids) -> [T, D] float64,
    sequence lengths)]: one folder per family with rotary or ALiBi positions,
    built by tests/data/gen_families.py's make_* (its references), run on
    sequences longer than TRAINED, which upstream computes:
      ModernBERT  ModernBertRotaryEmbedding has no table (cos and sin of
                  position_ids times inv_freq); the sliding window mask is built
                  for the input's length (ModernBertModel._update_attention_mask)
      GTE         RotaryEmbedding.forward rebuilds its cache past max_seq_len_cached
                  (max_position_embeddings * factor: 128, which 130 tokens pass)
                  through NTKScalingRotaryEmbedding._set_cos_sin_cache, whose
                  inv_freq past max_position_embeddings (never moved) is the same
                  scaled one: one formula at every length
      JinaBERT    JinaBertEncoder rebuilds its ALiBi tensor for the input's length
                  (rebuild_alibi_tensor(size=seqlen)); token_type_ids are given
                  (zeros), as its tokenizer gives them
      NomicBERT   NomicBertRotaryEmbedding._update_cos_sin_cache grows its tables to
                  the input's length (rotary_scaling_factor null: no NTK); config.json's
                  vocab_size 60 is not a multiple of pad_vocab_size_multiple 64, which
                  NomicBertModel.__init__ rounds up to the 64 rows word_embeddings has"""
    data = os.path.join(HERE, "..", "data")
    if data not in sys.path:
        sys.path.insert(0, data)
    import gen_families as fam  # sets float64 as torch's default dtype, as it runs
    D, V = fam.D, fam.V
    W, modernbert_forward, modernbert_cfg, _ = fam.make_modernbert(71, D, V)
    modernbert_cfg.update(architectures=["ModernBertModel"])
    gte_w, gte_cfg, gte_forward = fam.make_gte(72, D, V, 500.0, 2.0, TRAINED)
    jina_w, jina_cfg, jina_forward = fam.make_jina(73, D, V, TRAINED)
    rows = 64  # nomic: vocab_size 60 rounded up to pad_vocab_size_multiple 64
    nomic_w, nomic_cfg, nomic_forward = fam.make_nomic(74, D, rows, 0.5, True, 500.0, 200,
                                                       TRAINED)
    nomic_cfg.update(vocab_size=V, pad_vocab_size_multiple=rows)
    return [
        ("beyond_modernbert", fam.modernbert_hub_names(W, prefix=""), modernbert_cfg,
         modernbert_forward, [80, 70, 9], V),
        ("beyond_gte", gte_w, gte_cfg, gte_forward, [130, 80, 7], V),
        ("beyond_jina", jina_w, jina_cfg, jina_forward, [100, 80, 3], V),
        ("beyond_nomic", nomic_w, nomic_cfg, nomic_forward, [80, 66, 5], rows),
    ]


def write_beyond_folder(name, weights, cfg, forward, lengths, n_ids):
    """The folder (model.safetensors, config.json) with input_ids.npy [B, T] and
    lengths.npy [B] (int32, ids drawn from the embedding's n_ids rows) and
    out.npy [B, T, D] (float32: each sequence's last_hidden_state alone, zeros
    where padded)."""
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    write_safetensors(os.path.join(d, "model.safetensors"),
                      {k: np.ascontiguousarray(v.numpy().astype(np.float32))
                       for k, v in weights.items()})
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
        f.write("\n")
    gen = torch.Generator().manual_seed(sum(lengths))
    B, T = len(lengths), max(lengths)
    ids = np.zeros((B, T), np.int32)
    out = np.zeros((B, T, cfg.get("hidden_size", cfg.get("n_embd"))), np.float32)
    for b, n in enumerate(lengths):
        seq = torch.randint(0, n_ids, (n,), generator=gen).tolist()
        ids[b, :n] = seq
        out[b, :n] = forward(seq).numpy()
    np.save(os.path.join(d, "input_ids.npy"), ids)
    np.save(os.path.join(d, "lengths.npy"), np.array(lengths, dtype=np.int32))
    np.save(os.path.join(d, "out.npy"), out)
    return name


def write_beyond_folders():
    dtype = torch.get_default_dtype()
    try:
        names = [write_beyond_folder(*folder) for folder in beyond_folders()]
    finally:
        torch.set_default_dtype(dtype)
    with open(os.path.join(HERE, "folders.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


def main():
    names = [make_case(100 + i, *case) for i, case in enumerate(CASES)]
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    write_fuzz_seeds()
    write_beyond_folders()


if __name__ == "__main__":
    main()
