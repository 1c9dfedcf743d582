#!/usr/bin/python3
"""The model bench/serve_load.py serves: a MiniLM-L6-shaped BERT (hidden 384,
12 heads, intermediate 1536, 6 layers, 512 positions, the vocabulary of
all-MiniLM-L6-v2's size) with deterministic random weights, written as a
sentence-transformers folder (modules.json: Transformer, mean Pooling,
Normalize; max_seq_length 256) for tfenc serve, and the same network,
weights, mean pooling and normalisation exported with torch to model.onnx
for ONNX Runtime (inputs input_ids and attention_mask int64 [B, T], output
embedding float32 [B, 384]). The BERT follows transformers'
models/bert/modeling_bert.py (BertEmbeddings, BertSelfAttention,
BertSelfOutput, BertIntermediate, BertOutput), the pooling
sentence_transformers/models/Pooling.py (mean over the attention mask) and
Normalize.py.

The vocabulary is [PAD] [UNK] [CLS] [SEP] [MASK], then made-up lower-case
words, so that a text of n - 2 of them is n tokens; texts(n, count, seed)
and texts_of_lengths(lengths, seed) give such texts.

    /usr/bin/python3 bench/serve_load/model.py OUT_DIR"""
import json
import math
import os
import random
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "golden"))
from safetensors_writer import write as write_safetensors  # noqa: E402

D, H, F, L, P, V = 384, 12, 1536, 6, 512, 30522
MAX_SEQ_LENGTH = 256
EPS = 1e-12
SEED = 2026
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]  # 70


def words():
    """V - len(SPECIALS) distinct words of two to three syllables."""
    out = []
    for a in SYLLABLES:
        for b in SYLLABLES:
            out.append(a + b)
            for c in SYLLABLES:
                if len(out) + len(SPECIALS) >= V:
                    return out
                out.append(a + b + c)
    return out


def texts(n_tokens, count, seed):
    """count texts of n_tokens tokens each ([CLS] and [SEP] included)."""
    return texts_of_lengths([n_tokens] * count, seed)


def texts_of_lengths(lengths, seed):
    """A text of n tokens for each n of lengths ([CLS] and [SEP] included)."""
    vocab = words()
    rng = random.Random(seed)
    return [" ".join(rng.choice(vocab) for _ in range(n - 2)) for n in lengths]


def make_weights():
    """BertModel's tensors (Hugging Face names), float32."""
    g = torch.Generator().manual_seed(SEED)

    def r(*shape, scale):
        return (torch.randn(*shape, generator=g) * scale).float()
    w = {"embeddings.word_embeddings.weight": r(V, D, scale=1.0),
         "embeddings.position_embeddings.weight": r(P, D, scale=0.5),
         "embeddings.token_type_embeddings.weight": r(2, D, scale=0.5),
         "embeddings.LayerNorm.weight": 1 + r(D, scale=0.1),
         "embeddings.LayerNorm.bias": r(D, scale=0.1)}
    for l in range(L):
        p = f"encoder.layer.{l}."
        for name in ("attention.self.query", "attention.self.key", "attention.self.value",
                     "attention.output.dense"):
            w[p + name + ".weight"] = r(D, D, scale=1 / math.sqrt(D))
            w[p + name + ".bias"] = r(D, scale=0.1)
        w[p + "intermediate.dense.weight"] = r(F, D, scale=1 / math.sqrt(D))
        w[p + "intermediate.dense.bias"] = r(F, scale=0.1)
        w[p + "output.dense.weight"] = r(D, F, scale=1 / math.sqrt(F))
        w[p + "output.dense.bias"] = r(D, scale=0.1)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + norm + ".weight"] = 1 + r(D, scale=0.1)
            w[p + norm + ".bias"] = r(D, scale=0.1)
    return w


class Embedder(nn.Module):
    """BertModel, then mean pooling over attention_mask and unit L2 norm."""

    def __init__(self, w):
        super().__init__()
        self.w = {k: v for k, v in w.items()}

    def ln(self, x, name):
        return nn.functional.layer_norm(x, (D,), self.w[name + ".weight"],
                                        self.w[name + ".bias"], EPS)

    def lin(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        x = self.w["embeddings.word_embeddings.weight"][input_ids]
        x = x + self.w["embeddings.position_embeddings.weight"][:T][None]
        x = x + self.w["embeddings.token_type_embeddings.weight"][0]
        x = self.ln(x, "embeddings.LayerNorm")
        mask = attention_mask.to(torch.float32)  # [B, T]
        bias = (1.0 - mask)[:, None, None, :] * -1e9  # [B, 1, 1, T]: padded keys out
        dk = D // H
        for l in range(L):
            p = f"encoder.layer.{l}."

            def heads(v):
                return v.view(B, T, H, dk).transpose(1, 2)  # [B, H, T, dk]
            q = heads(self.lin(x, p + "attention.self.query"))
            k = heads(self.lin(x, p + "attention.self.key"))
            v = heads(self.lin(x, p + "attention.self.value"))
            att = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(dk) + bias, dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(B, T, D)
            x = self.ln(self.lin(ctx, p + "attention.output.dense") + x,
                        p + "attention.output.LayerNorm")
            h = self.lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
            x = self.ln(self.lin(h, p + "output.dense") + x, p + "output.LayerNorm")
        m = mask[:, :, None]
        pooled = (x * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
        return pooled / torch.clamp(pooled.norm(dim=1, keepdim=True), min=1e-12)


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)


def write_folder(out, w):
    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    write_safetensors(os.path.join(out, "model.safetensors"),
                      {k: v.numpy() for k, v in w.items()})
    dump(os.path.join(out, "config.json"),
         {"model_type": "bert", "architectures": ["BertModel"], "vocab_size": V,
          "hidden_size": D, "num_attention_heads": H, "intermediate_size": F,
          "num_hidden_layers": L, "max_position_embeddings": P, "type_vocab_size": 2,
          "hidden_act": "gelu", "layer_norm_eps": EPS, "pad_token_id": 0})
    dump(os.path.join(out, "tokenizer_config.json"),
         {"do_lower_case": True, "model_max_length": 512, "tokenizer_class": "BertTokenizer"})
    dump(os.path.join(out, "sentence_bert_config.json"),
         {"max_seq_length": MAX_SEQ_LENGTH, "do_lower_case": False})
    dump(os.path.join(out, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize",
         "type": "sentence_transformers.models.Normalize"}])
    dump(os.path.join(out, "1_Pooling", "config.json"),
         {"word_embedding_dimension": D, "pooling_mode_cls_token": False,
          "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
          "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
          "pooling_mode_lasttoken": False, "include_prompt": True})
    with open(os.path.join(out, "vocab.txt"), "w") as f:
        f.write("\n".join(SPECIALS + words()) + "\n")


def export_onnx(out, w):
    ids = torch.randint(5, V, (2, 8), generator=torch.Generator().manual_seed(0))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 5:] = 0
    tmp = os.path.join(out, "model.onnx.tmp")
    torch.onnx.export(Embedder(w).eval(), (ids, mask), tmp, opset_version=17,
                      input_names=["input_ids", "attention_mask"], output_names=["embedding"],
                      dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                                    "attention_mask": {0: "batch", 1: "seq"},
                                    "embedding": {0: "batch"}},
                      do_constant_folding=True)
    os.replace(tmp, os.path.join(out, "model.onnx"))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    w = make_weights()
    write_folder(out, w)
    with torch.no_grad():
        export_onnx(out, w)
    print(f"{out}: MiniLM-L6-shaped BERT (D {D}, H {H}, F {F}, L {L}, V {V}); model.onnx",
          file=sys.stderr)


if __name__ == "__main__":
    main()
