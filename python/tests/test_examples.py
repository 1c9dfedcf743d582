"""The examples in python/examples run as their docstrings say."""
import os
import subprocess
import sys

import numpy as np

from conftest import DATA, ROOT

EXAMPLES = os.path.join(ROOT, "python", "examples")


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args], check=True,
                          capture_output=True, text=True, timeout=120).stdout


def test_sentence_vectors_from_a_sentence_transformers_folder(st):
    """The similarity matrix of three texts: cosines of st_mean_norm's unit
    vectors, against float64 ones of the vectors encode gives."""
    texts = ["the cat sat", "a cat sat", "prices fell"]
    out = run("sentence_vectors.py", os.path.join(DATA, "pipelines", "st_mean_norm"), *texts)
    lines = out.splitlines()
    assert lines[0] == "3 sentences -> vectors of 16 floats, cosine similarity"
    printed = np.array([[float(v) for v in line.split()[:3]] for line in lines[1:4]])
    e = st.encode(texts).astype(np.float64)
    cosines = (e @ e.T) / np.outer(np.linalg.norm(e, axis=1), np.linalg.norm(e, axis=1))
    assert np.allclose(printed, cosines, atol=5e-4, rtol=0)
    assert [line.split("   ")[-1] for line in lines[1:4]] == texts


def test_attention_weights_of_one_layer(tmp_path):
    out = run("attention_weights.py", os.path.join(DATA, "bert_tiny"), "--ids", "2,965,321,18",
              "--layer", "1", "--npy", str(tmp_path / "w.npy"))
    assert out.splitlines()[0] == "layers.1.attn.weights: 4 heads x 4 x 4"
    w = np.load(tmp_path / "w.npy")
    assert w.shape == (4, 4, 4) and np.allclose(w.sum(-1), 1.0, atol=1e-6)
