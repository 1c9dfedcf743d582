#!/usr/bin/python3
"""The models of bench/compare_ort, exported from torch.nn.TransformerEncoder
(post-norm, GELU, batch_first, dropout 0) or, for the rotary one, from
RotaryLayer below, with deterministic random weights, each written twice:

  NAME.onnx         for ONNX Runtime: inputs x float32 [B, T, D] and
                    attention_mask int64 [B, T] (1 = real token, right
                    padding, as Hugging Face exports take it), output y
                    [B, T, D]; B and T are dynamic axes
  NAME.safetensors  the encoder's state_dict (layers.{i}.self_attn.
                    in_proj_weight, ...) for tf_encoder_load, with n_heads,
                    activation, norm_first and layer_norm_eps in __metadata__;
                    the rotary layer in libtfenc's own format (its tensor
                    names, the whole tf_config in __metadata__)

Needs Debian's python3-torch and python3-onnx:

    /usr/bin/python3 bench/compare_ort/export.py [--out DIR] [--models layer,...]
"""
import argparse
import json
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

# name: (d_model, n_heads, d_ff, n_layers)
MODELS = {
    "bert_layer": (768, 12, 3072, 1),
    "minilm6": (384, 12, 1536, 6),
    "bert12": (768, 12, 3072, 12),
    "rope_layer": (768, 12, 3072, 1),
}
ROTARY = {"rope_layer"}  # RotaryLayer, not nn.TransformerEncoder
ROTARY_THETA = 10000.0
OPSET = 17  # torch 1.13's newest; ONNX Runtime 1.2x and 1.3x accept it
LAYER_NORM_EPS = 1e-5  # PyTorch's default, also tf_encoder_load's
SEED = 1013
DEFAULT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


class WithMask(nn.Module):
    """encoder(x, src_key_padding_mask) behind a Hugging Face-style
    attention_mask input (1 = real token)."""

    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, x, attention_mask):
        return self.encoder(x, src_key_padding_mask=attention_mask == 0)


def make_encoder(d_model, n_heads, d_ff, n_layers, seed):
    """An eval-mode nn.TransformerEncoder with fill_random's weights (its
    layers are deep copies of one layer, so PyTorch's own initialisation
    would give them equal weights)."""
    layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=False,
                                       layer_norm_eps=LAYER_NORM_EPS)
    return fill_random(nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False), seed)


class RotaryLayer(nn.Module):
    """One post-norm BERT-shaped layer whose q and k are rotated by position,
    half-split (rotate_half and apply_rotary_pos_emb of Hugging Face's
    modeling_modernbert.py / modeling_llama.py, every dimension of a head,
    theta 10000), attention and the GELU feed-forward as plain products, so
    the ONNX graph is what an export of such a model gives ONNX Runtime:

        x = LN1(x + out(softmax(rot(q) rot(k)^T / sqrt(d_k) + mask) v))
        x = LN2(x + down(gelu(up(x))))
    """

    def __init__(self, d_model, n_heads, d_ff):
        super().__init__()
        self.h, self.dk = n_heads, d_model // n_heads
        self.q, self.k, self.v, self.out = (nn.Linear(d_model, d_model) for _ in range(4))
        self.up, self.down = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.norm2 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        inv_freq = 1.0 / ROTARY_THETA ** (torch.arange(0, self.dk, 2).float() / self.dk)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # (d_k / 2)

    def rotate(self, t, cos, sin):
        """t (B, H, T, d_k): t cos + rotate_half(t) sin"""
        t1, t2 = t[..., : self.dk // 2], t[..., self.dk // 2:]
        return t * cos + torch.cat((-t2, t1), dim=-1) * sin

    def forward(self, x, attention_mask):
        B, T, D = x.shape
        heads = lambda t: t.view(B, T, self.h, self.dk).transpose(1, 2)  # (B, H, T, d_k)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        freqs = torch.arange(T, dtype=torch.float32)[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)  # (T, d_k)
        cos, sin = emb.cos(), emb.sin()
        q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        scores = q @ k.transpose(-1, -2) / self.dk ** 0.5  # (B, H, T, T)
        scores = scores.masked_fill((attention_mask == 0)[:, None, None, :], float("-inf"))
        ctx = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = self.norm1(x + self.out(ctx))
        return self.norm2(x + self.down(nn.functional.gelu(self.up(x))))


def fill_random(module, seed):
    """Every parameter drawn afresh from a seeded generator: Linear weights
    and biases U(-1/sqrt(in), 1/sqrt(in)) as PyTorch draws them, LayerNorm
    weights U(0.8, 1.2) and biases U(-0.1, 0.1), so that the norms are not
    the identity and a mix-up of them shows in the outputs."""
    gen = torch.Generator().manual_seed(seed)
    params = dict(module.named_parameters())
    with torch.no_grad():
        for name, p in params.items():
            if "norm" in name:
                lo, hi = (0.8, 1.2) if name.endswith("weight") else (-0.1, 0.1)
            else:  # a Linear's weight [out, in] or bias [out]: the bound of its fan-in
                weight = params[name.replace("bias", "weight")]
                lo, hi = -weight.shape[1] ** -0.5, weight.shape[1] ** -0.5
            p.copy_(torch.rand(p.shape, generator=gen) * (hi - lo) + lo)
    return module.eval()


def rotary_tfenc_file(layer, d_model, n_heads, d_ff):
    """(tensors, metadata) of RotaryLayer in libtfenc's own format: its
    tensor names and every tf_config key (tf_encoder_save's layout)."""
    names = {"q": "attn.q", "k": "attn.k", "v": "attn.v", "out": "attn.out", "norm1": "norm1",
             "up": "ffn.up", "down": "ffn.down", "norm2": "norm2"}
    tensors = {f"layers.0.{names[k.split('.')[0]]}.{k.split('.')[1]}": v.detach().numpy()
               for k, v in layer.state_dict().items()}
    config = {"d_model": d_model, "n_heads": n_heads, "d_ff": d_ff, "n_layers": 1,
              "vocab_size": 0, "max_positions": 0, "position": "rotary", "n_token_types": 0,
              "embedding_norm": "false", "norm_first": "false", "final_norm": "false",
              "activation": "gelu", "bias": "true", "pooler": "false",
              "layer_norm_eps": repr(LAYER_NORM_EPS), "seed": 0, "rotary_base": repr(ROTARY_THETA)}
    return tensors, {"format": "tfenc", "format_version": "1",
                     **{k: str(v) for k, v in config.items()}}


def write_safetensors(path, tensors, metadata):
    """tensors {name: float32 ndarray} as a safetensors file."""
    header, offset = {"__metadata__": metadata}, 0
    for name, a in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the data starts 8-byte aligned
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        for a in tensors.values():
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())
    os.replace(tmp, path)


def export(name, out_dir):
    d_model, n_heads, d_ff, n_layers = MODELS[name]
    base = os.path.join(out_dir, name)
    if name in ROTARY:
        model = fill_random(RotaryLayer(d_model, n_heads, d_ff), SEED + 100)
        write_safetensors(base + ".safetensors", *rotary_tfenc_file(model, d_model, n_heads, d_ff))
    else:
        encoder = make_encoder(d_model, n_heads, d_ff, n_layers, SEED + n_layers)
        state = {k: v.detach().numpy() for k, v in encoder.state_dict().items()}
        write_safetensors(base + ".safetensors", state,
                          {"n_heads": str(n_heads), "activation": "gelu", "norm_first": "false",
                           "layer_norm_eps": repr(LAYER_NORM_EPS)})
        model = WithMask(encoder).eval()
    x = torch.randn(2, 8, d_model, generator=torch.Generator().manual_seed(0))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 5:] = 0
    tmp = base + ".onnx.tmp"
    # With gradients on, PyTorch 1.13 takes the layers' composite path, not
    # its fused fast path (aten::_transformer_encoder_layer_fwd), which has no
    # ONNX export.
    torch.onnx.export(model, (x, mask), tmp, opset_version=OPSET,
                      input_names=["x", "attention_mask"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch", 1: "seq"},
                                    "attention_mask": {0: "batch", 1: "seq"},
                                    "y": {0: "batch", 1: "seq"}},
                      do_constant_folding=True)
    os.replace(tmp, base + ".onnx")
    print(f"{name}: D {d_model}, H {n_heads}, F {d_ff}, L {n_layers} -> {base}.onnx, "
          f"{base}.safetensors", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_DIR, help="folder for the files (%(default)s)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated, of "
                    + ", ".join(MODELS))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"--models: expected names from {sorted(MODELS)}, got {name!r}")
        export(name, args.out)


if __name__ == "__main__":
    main()
