"""The examples in python/examples run as their docstrings say."""
import os
import shutil
import subprocess
import sys

import numpy as np

import tfenc
from conftest import DATA, ROOT

EXAMPLES = os.path.join(ROOT, "python", "examples")


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_sentence_vectors_from_a_bert_directory(tmp_path, vocab_path):
    bert = tmp_path / "bert"  # a BERT-shaped model over the fixture's vocabulary
    bert.mkdir()
    shutil.copy(vocab_path, bert / "vocab.txt")
    tok = tfenc.Tokenizer(vocab_path)
    tfenc.Encoder(32, 4, 64, 2, vocab_size=tok.vocab_size, position="learned",
                  max_positions=64, n_token_types=2, embedding_norm=True,
                  seed=4).save(bert / "model.safetensors")
    out = run("sentence_vectors.py", str(bert / "model.safetensors"), "--vocab",
              str(bert / "vocab.txt"), "the cat sat", "a cat sat", "prices fell")
    lines = out.splitlines()
    assert lines[0] == "3 sentences -> vectors of 32 floats"
    diagonal = [float(lines[1 + i].split()[i]) for i in range(3)]
    assert diagonal == [1.0, 1.0, 1.0]  # unit vectors: each sentence's cosine with itself


def test_attention_weights_of_one_layer(tmp_path):
    out = run("attention_weights.py", os.path.join(DATA, "bert_tiny"), "--ids", "2,965,321,18",
              "--layer", "1", "--npy", str(tmp_path / "w.npy"))
    assert out.splitlines()[0] == "layers.1.attn.weights: 4 heads x 4 x 4"
    w = np.load(tmp_path / "w.npy")
    assert w.shape == (4, 4, 4) and np.allclose(w.sum(-1), 1.0, atol=1e-6)
