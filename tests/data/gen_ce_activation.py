#!/usr/bin/python3
"""Writes tests/data/ce_activation/: the cross-encoder of
tests/data/pipelines/cross_encoder (its weights and vocabulary linked, not
copied) under a config.json naming torch.nn's Identity as
sentence_transformers.activation_fn, as sentence-transformers v4+ saves
ms-marco cross-encoders; and expected.json: the token ids, the float64
logits of the stored float32 weights (gen_pipelines.py's bert_forward and
BertForSequenceClassification's classifier), and what each torch.nn
activation a config.json may name makes of them; the same for the three
labels of tests/data/pipelines/classifier's weights on the same pairs
("classifier"). Each activation as sentence-transformers'
CrossEncoder.predict applies its activation_fn
(sentence_transformers/cross_encoder/CrossEncoder.py: get_default_activation_fn
instantiates the class the config names; predict calls it on the logits
[n, labels]; nn.Softmax() without dim takes dim 1 of 2-D logits).

    /usr/bin/python3 tests/data/gen_ce_activation.py"""
import json
import os
import struct
import warnings

import numpy as np
import torch

import gen_pipelines as ref

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "pipelines", "cross_encoder")
CLASSIFIER = os.path.join(HERE, "pipelines", "classifier")
OUT = os.path.join(HERE, "ce_activation", "identity")
LINKED = ("model.safetensors", "vocab.txt", "tokenizer_config.json")
ACTIVATIONS = {  # the config's name: the torch module predict applies
    "torch.nn.modules.activation.Sigmoid": torch.nn.Sigmoid(),
    "torch.nn.modules.linear.Identity": torch.nn.Identity(),
    "torch.nn.modules.activation.Tanh": torch.nn.Tanh(),
    "torch.nn.modules.activation.ReLU": torch.nn.ReLU(),
    "torch.nn.modules.activation.Softmax": torch.nn.Softmax(),
}


def read_safetensors(path):
    """name -> float32 torch tensor of a safetensors file of F32 tensors."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header, body = json.loads(data[8:8 + n]), data[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        assert t["dtype"] == "F32", (name, t["dtype"])
        values = np.frombuffer(body[begin:end], "<f4").reshape(t["shape"])
        out[name] = torch.from_numpy(values.copy())
    return out


def read_folder(d):
    """The weights and config.json of the head folder d."""
    with open(os.path.join(d, "config.json")) as f:
        return read_safetensors(os.path.join(d, "model.safetensors")), json.load(f)


def head_logits(w, cfg, pairs):
    """[n, labels] float64 logits of BertForSequenceClassification (pooler
    output, then the classifier) and the ids of each (text, pair)."""
    ids, logits = [], []
    for text, pair in pairs:
        i, types, _ = ref.encode(text, pair)
        _, pooled = ref.bert_forward(w, cfg, i, types, "bert.")
        logits.append(pooled @ w["classifier.weight"].double().T + w["classifier.bias"].double())
        ids.append(i)
    return torch.stack(logits), ids


def activated(logits):
    """name -> rows of the activation the config names on logits [n, labels]."""
    with warnings.catch_warnings():  # nn.Softmax() without dim: upstream's "implicit dim"
        warnings.simplefilter("ignore", UserWarning)
        return {name: [ref.floats(r) for r in fn(logits)] for name, fn in ACTIVATIONS.items()}


def main():
    w, cfg = read_folder(BASE)
    with open(os.path.join(BASE, "expected.json")) as f:
        base = json.load(f)
    logits, ids = head_logits(w, cfg, base["inputs"])  # [n, 1]
    assert ids == base["ids"]
    assert torch.allclose(torch.sigmoid(logits), torch.tensor(base["out"]), atol=1e-12, rtol=0)
    three, _ = head_logits(*read_folder(CLASSIFIER), base["inputs"])  # [n, 3]
    os.makedirs(OUT, exist_ok=True)
    for name in LINKED:
        link = os.path.join(OUT, name)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(os.path.relpath(os.path.join(BASE, name), OUT), link)
    cfg["sentence_transformers"] = {"activation_fn": "torch.nn.modules.linear.Identity"}
    ref.dump(os.path.join(OUT, "config.json"), cfg)
    ref.dump(os.path.join(OUT, "expected.json"), {
        "inputs": base["inputs"], "labels": base["labels"], "ids": ids,
        "out": [ref.floats(r) for r in logits], "activations": activated(logits),
        "classifier": {"activations": activated(three)}})


if __name__ == "__main__":
    main()
