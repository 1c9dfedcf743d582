#!/usr/bin/python3
"""Writes the golden fixtures of tests/golden/<case>/ from PyTorch's
nn.TransformerEncoder (Debian's python3-torch; run with /usr/bin/python3).

Each case holds float32 weights under libtfenc's tensor names, a float32
input x [B,T,D], the real lengths [B], and the references computed by
PyTorch in float64 from exactly those float32 values:
  out.npy     [B,T,D]      the encoder's output
  hidden.npy  [L+1,B,T,D]  the input, then each layer's output
  attn0.npy   [B,H,T,T]    layer 0's attention weights
meta.txt gives the configuration. The tests read these without torch.

It also writes PyTorch checkpoints as the loader meets them: state_dicts
under PyTorch's own names in safetensors files (F32, F16, BF16; a whole
nn.TransformerEncoder or one nn.TransformerEncoderLayer; settings given as
load options or in __metadata__), in tests/golden/pytorch_<case>/ with
model.safetensors, x.npy, lengths.npy, out.npy (from float64 runs with the
weights exactly as stored) and options.txt.

    /usr/bin/python3 tests/golden/gen_golden.py   # rewrites tests/golden/*/
"""
import os
import shutil

import numpy as np
import torch

from safetensors_writer import write as write_safetensors
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [
    # name, D, H, d_ff, L, norm_first, activation, final_norm, eps, lengths, T, causal
    ("post_gelu_padding", 32, 4, 64, 2, False, "gelu", False, 1e-5, [7, 4, 1], 7, False),
    ("pre_relu_causal_final_norm", 32, 2, 48, 2, True, "relu", True, 1e-5, [6, 3], 6, True),
    ("odd_d96_h6", 96, 6, 192, 1, False, "gelu", False, 1e-5, [9, 5], 9, False),
    ("pre_gelu_tanh", 48, 4, 96, 1, True, "gelu_tanh", False, 1e-5, [10], 10, False),
    ("post_relu_causal_padding_3_layers", 64, 8, 128, 3, False, "relu", False, 1e-6, [8, 5, 2], 8,
     True),
    ("long_causal_blocks", 32, 4, 64, 1, False, "gelu", False, 1e-5, [150, 131], 150, True),
]

ACTIVATIONS = {
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


def canonical_weights(encoder, n_layers, D):
    """PyTorch state_dict names -> libtfenc's names (q, k, v split apart)."""
    sd = {k: v.detach().to(torch.float32).numpy() for k, v in encoder.state_dict().items()}
    out = {}
    for l in range(n_layers):
        p = f"layers.{l}."
        w, b = sd[p + "self_attn.in_proj_weight"], sd[p + "self_attn.in_proj_bias"]
        for i, name in enumerate("qkv"):
            out[f"{p}attn.{name}.weight"] = w[i * D:(i + 1) * D]
            out[f"{p}attn.{name}.bias"] = b[i * D:(i + 1) * D]
        pairs = [("self_attn.out_proj", "attn.out"), ("linear1", "ffn.up"),
                 ("linear2", "ffn.down"), ("norm1", "norm1"), ("norm2", "norm2")]
        for theirs, ours in pairs:
            out[f"{p}{ours}.weight"] = sd[f"{p}{theirs}.weight"]
            out[f"{p}{ours}.bias"] = sd[f"{p}{theirs}.bias"]
    if "norm.weight" in sd:
        out["final_norm.weight"] = sd["norm.weight"]
        out["final_norm.bias"] = sd["norm.bias"]
    return {k: np.ascontiguousarray(v) for k, v in out.items()}


def make_case(seed, name, D, H, d_ff, L, norm_first, act, final_norm, eps, lengths, T, causal):
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(D, H, d_ff, dropout=0.0, activation=ACTIVATIONS[act],
                                       layer_norm_eps=eps, batch_first=True,
                                       norm_first=norm_first)
    norm = nn.LayerNorm(D, eps=eps) if final_norm else None
    encoder = nn.TransformerEncoder(layer, L, norm=norm, enable_nested_tensor=False)
    with torch.no_grad():  # LayerNorms away from 1/0, so that ignoring them shows
        for module in encoder.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.add_(0.1 * torch.randn(D))
                module.bias.add_(0.1 * torch.randn(D))
        for l in range(L):  # different layers, not clones of one
            for p in encoder.layers[l].parameters():
                p.add_(0.02 * torch.randn_like(p))
    encoder.eval()

    B = len(lengths)
    x32 = torch.randn(B, T, D)
    for b, n in enumerate(lengths):
        x32[b, n:] = 0.0  # padding; its values must not matter
    padding = torch.arange(T)[None, :] >= torch.tensor(lengths)[:, None]  # True = pad
    mask = nn.Transformer.generate_square_subsequent_mask(T).double() if causal else None

    enc64 = encoder.double()
    x = x32.double()
    hidden = [x]
    with torch.no_grad():
        first_in = enc64.layers[0].norm1(x) if norm_first else x
        _, attn0 = enc64.layers[0].self_attn(first_in, first_in, first_in, attn_mask=mask,
                                             key_padding_mask=padding, need_weights=True,
                                             average_attn_weights=False)
        h = x
        for l in range(L):
            h = enc64.layers[l](h, src_mask=mask, src_key_padding_mask=padding)
            hidden.append(h)
        out = enc64.norm(h) if final_norm else h
    weights = canonical_weights(encoder.float(), L, D)

    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "weights"))
    for k, v in weights.items():
        np.save(os.path.join(d, "weights", k + ".npy"), v)
    np.save(os.path.join(d, "x.npy"), x32.numpy())
    np.save(os.path.join(d, "lengths.npy"), np.array(lengths, dtype=np.int32))
    np.save(os.path.join(d, "out.npy"), out.float().numpy())
    np.save(os.path.join(d, "hidden.npy"), torch.stack(hidden).float().numpy())
    np.save(os.path.join(d, "attn0.npy"), attn0.float().numpy())
    act_id = {"gelu": 0, "gelu_tanh": 1, "relu": 2}[act]
    with open(os.path.join(d, "meta.txt"), "w") as f:
        f.write(f"d_model {D}\nn_heads {H}\nd_ff {d_ff}\nn_layers {L}\n"
                f"norm_placement {int(norm_first)}\nactivation {act_id}\n"
                f"final_norm {int(final_norm)}\nlayer_norm_eps {eps!r}\n"
                f"batch {B}\nseq_len {T}\ncausal {int(causal)}\n")
    return name


CHECKPOINT_CASES = [
    # name, D, H, d_ff, L (0 = one bare layer), norm_first, activation, final_norm, dtype,
    # settings in __metadata__ (else as load options), lengths, T, causal
    ("encoder_f32_options", 32, 4, 64, 2, False, "gelu", False, "F32", False, [6, 3], 6, False),
    ("encoder_f16_metadata", 32, 2, 48, 2, True, "relu", True, "F16", True, [5, 5], 5, True),
    ("single_layer_bf16_metadata", 24, 3, 40, 0, False, "gelu_tanh", False, "BF16", True, [4, 2],
     4, False),
]


def stored(t, dtype):
    """t as the file stores it: (array for the writer, float64 value loaded)."""
    if dtype == "F32":
        a = t.float().numpy()
        return a, torch.from_numpy(a).double()
    if dtype == "F16":
        a = t.half().numpy()
        return a, torch.from_numpy(a).double()
    b = t.bfloat16()
    return ("BF16", b.view(torch.int16).numpy().view(np.uint16)), b.double()


def make_checkpoint_case(seed, name, D, H, d_ff, L, norm_first, act, final_norm, dtype,
                         in_metadata, lengths, T, causal):
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(D, H, d_ff, dropout=0.0, activation=ACTIVATIONS[act],
                                       batch_first=True, norm_first=norm_first)
    norm = nn.LayerNorm(D) if final_norm else None
    module = layer if L == 0 else nn.TransformerEncoder(layer, L, norm=norm,
                                                        enable_nested_tensor=False)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(0.05 * torch.randn_like(p))
    module.eval()
    tensors, values = {}, {}
    for k, v in module.state_dict().items():
        tensors[k], values[k] = stored(v, dtype)
    module64 = module.double()
    module64.load_state_dict(values)  # exactly the stored values

    B = len(lengths)
    x = torch.randn(B, T, D)
    padding = torch.arange(T)[None, :] >= torch.tensor(lengths)[:, None]
    mask = nn.Transformer.generate_square_subsequent_mask(T).double() if causal else None
    with torch.no_grad():
        if L == 0:
            out = module64(x.double(), src_mask=mask, src_key_padding_mask=padding)
        else:
            h = x.double()
            for lay in module64.layers:
                h = lay(h, src_mask=mask, src_key_padding_mask=padding)
            out = module64.norm(h) if final_norm else h

    settings = {"n_heads": H, "activation": act, "norm_first": str(norm_first).lower()}
    d = os.path.join(HERE, "pytorch_" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    write_safetensors(os.path.join(d, "model.safetensors"), tensors,
                      settings if in_metadata else None)
    np.save(os.path.join(d, "x.npy"), x.numpy())
    np.save(os.path.join(d, "lengths.npy"), np.array(lengths, dtype=np.int32))
    np.save(os.path.join(d, "out.npy"), out.float().numpy())
    act_id = {"gelu": 0, "gelu_tanh": 1, "relu": 2}[act]
    with open(os.path.join(d, "options.txt"), "w") as f:
        if not in_metadata:
            f.write(f"n_heads {H}\nactivation {act_id}\nnorm_placement {int(norm_first)}\n")
        f.write(f"batch {B}\nseq_len {T}\ncausal {int(causal)}\nd_model {D}\n")
    return "pytorch_" + name


def main():
    names = [make_case(1000 + i, *case) for i, case in enumerate(CASES)]
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    checkpoints = [make_checkpoint_case(2000 + i, *case)
                   for i, case in enumerate(CHECKPOINT_CASES)]
    with open(os.path.join(HERE, "checkpoints.txt"), "w") as f:
        f.write("\n".join(checkpoints) + "\n")
    print(f"wrote {len(names)} cases and {len(checkpoints)} checkpoints under {HERE} "
          f"with torch {torch.__version__}")


if __name__ == "__main__":
    main()
