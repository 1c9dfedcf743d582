#!/usr/bin/python3
"""The ONNX Runtime peers of bench/sparse_bench.py and bench/colbert_encode.py
(issue 32): a folder's safetensors weights exported with torch 1.13 the way a
user exporting the retrieval model would, the head in the graph.

  splade  a BertForMaskedLM folder (sparse_bench.py's): BertModel, then
          BertLMPredictionHead (transform dense, GELU, LayerNorm, the decoder
          tied to the word embeddings, + bias), then SPLADE pooling
          (log(1 + ReLU(logits)) times the attention mask, max over tokens).
          Inputs input_ids, attention_mask int64 [B, T]; output sparse
          float32 [B, V].
  colbert a PyLate folder (colbert_encode.py's): BertModel, then the Dense
          384 -> 96 without bias, then each token's vector divided by its L2
          norm. Inputs as above; output token_vectors float32 [B, T, 96]
          (the skiplist and padding are dropped after, as PyLate does).
  dense   sparse_bench.py's BertModel folder: BertModel, then the mean over
          the real tokens; output embedding float32 [B, D].

The BERT follows transformers' models/bert/modeling_bert.py (BertEmbeddings,
BertSelfAttention, BertSelfOutput, BertIntermediate, BertOutput,
BertPredictionHeadTransform, BertLMPredictionHead); the pooling
sentence-transformers' sparse_encoder/models/SpladePooling.py forward; the
ColBERT head PyLate's models/Dense.py and colbert.py's normalisation.

    /usr/bin/python3 bench/compare_ort/retrieval_export.py splade|dense|colbert FOLDER OUT.onnx"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

DTYPES = {"F32": np.float32}


def read_safetensors(path):
    """The tensors of a float32 safetensors file, name -> torch tensor."""
    with open(os.path.realpath(path), "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        a, b = t["data_offsets"]
        out[name] = torch.from_numpy(
            np.frombuffer(data[a:b], DTYPES[t["dtype"]]).reshape(t["shape"]).copy())
    return out


class Bert(nn.Module):
    """BertModel's last hidden state [B, T, D]; w's names without a prefix."""

    def __init__(self, w, cfg):
        super().__init__()
        self.w, self.cfg = w, cfg
        self.D, self.H = cfg["hidden_size"], cfg["num_attention_heads"]
        self.eps = cfg["layer_norm_eps"]

    def ln(self, x, name):
        width = self.w[name + ".weight"].shape[0]
        return nn.functional.layer_norm(x, (width,), self.w[name + ".weight"],
                                        self.w[name + ".bias"], self.eps)

    def lin(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def forward(self, input_ids, attention_mask):
        B, T = input_ids.shape
        D, H = self.D, self.H
        x = self.w["embeddings.word_embeddings.weight"][input_ids]
        x = x + self.w["embeddings.position_embeddings.weight"][:T][None]
        x = x + self.w["embeddings.token_type_embeddings.weight"][0]
        x = self.ln(x, "embeddings.LayerNorm")
        mask = attention_mask.to(torch.float32)  # [B, T]
        bias = (1.0 - mask)[:, None, None, :] * torch.finfo(torch.float32).min  # [B, 1, 1, T]
        dk = D // H
        for l in range(self.cfg["num_hidden_layers"]):
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
        return x


class Splade(Bert):
    """BertForMaskedLM's logits, SpladePooling (max, relu): [B, V]."""

    def forward(self, input_ids, attention_mask):
        x = super().forward(input_ids, attention_mask)  # [B, T, D]
        h = self.lin(x, "cls.predictions.transform.dense")
        h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
        h = self.ln(h, "cls.predictions.transform.LayerNorm")
        decoder = self.w.get("cls.predictions.decoder.weight",
                             self.w["embeddings.word_embeddings.weight"])  # [V, D], tied
        logits = h @ decoder.T + self.w["cls.predictions.bias"]  # [B, T, V]
        values = torch.log1p(torch.relu(logits)) * attention_mask.to(torch.float32)[:, :, None]
        return values.max(dim=1).values


class MeanPooled(Bert):
    """The dense encoder alone, as sparse_bench.py's BertModel folder: the mean
    of the real tokens' last hidden states, [B, D]."""

    def forward(self, input_ids, attention_mask):
        x = super().forward(input_ids, attention_mask)  # [B, T, D]
        m = attention_mask.to(torch.float32)[:, :, None]
        return (x * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)


class ColBERT(Bert):
    """PyLate's Dense (no bias) and unit rows: [B, T, dim]."""

    def forward(self, input_ids, attention_mask):
        x = super().forward(input_ids, attention_mask) @ self.w["dense.weight"].T
        return x / torch.clamp(x.norm(dim=-1, keepdim=True), min=1e-12)


def load(kind, folder):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    w = {k[len("bert."):] if k.startswith("bert.") else k: v for k, v in w.items()}
    if kind == "splade":
        return Splade(w, cfg), "sparse", {0: "batch"}
    if kind == "dense":
        return MeanPooled(w, cfg), "embedding", {0: "batch"}
    w["dense.weight"] = read_safetensors(
        os.path.join(folder, "1_Dense", "model.safetensors"))["linear.weight"]
    return ColBERT(w, cfg), "token_vectors", {0: "batch", 1: "seq"}


def main():
    kind, folder, out = sys.argv[1:4]
    model, output, out_axes = load(kind, folder)
    ids = torch.randint(5, 1000, (2, 8), generator=torch.Generator().manual_seed(0))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 5:] = 0
    tmp = out + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model.eval(), (ids, mask), tmp, opset_version=17,
                          input_names=["input_ids", "attention_mask"], output_names=[output],
                          dynamic_axes={"input_ids": {0: "batch", 1: "seq"},
                                        "attention_mask": {0: "batch", 1: "seq"},
                                        output: out_axes},
                          do_constant_folding=True)
    os.replace(tmp, out)
    print(f"{out}: {kind} from {folder}", file=sys.stderr)


if __name__ == "__main__":
    main()
